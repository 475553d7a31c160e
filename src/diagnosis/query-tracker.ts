/**
 * One query's diagnosis, fed progress in order. Keeps a fixed ring of per-batch features, runs the
 * detectors on every batch and turns their verdicts into incidents with a lifecycle: open on
 * evidence, update while it lasts, resolve only after the condition has been back to normal for a
 * few batches (hysteresis: one episode is one incident). Pure: time comes in as data.
 */
import type { Progress } from '../progress/types.js';
import { isoMs, MIN_TIMESTAMP_MS } from '../progress/values.js';
import { capExceededInRun, capTolerance, readsAtCap } from './admission-cap.js';
import { batchesSince, disruptionAt, type Disruption } from './aftermath.js';
import { nextCapBound, type CapBound } from './cap-binding.js';
import { extractFacts, extractFeatures, type BatchFeatures, type QueryFacts } from './batch-features.js';
import { detectDataLossRisk } from './detectors/data-loss-risk.js';
import type { DetectorContext, Finding, WatermarkWatch } from './detectors/detector.js';
import { detectLag } from './detectors/lag.js';
import { detectSlowRepartition } from './detectors/slow-repartition.js';
import { detectStalled, silentSinceMs, stallThresholdMs } from './detectors/stalled.js';
import { detectStateGrowth } from './detectors/state-growth.js';
import { resolveEngineOptions, TUNING, type EngineOptions, type ResolvedEngineOptions } from './engine-options.js';
import { FeatureRing } from './feature-ring.js';
import { iso } from './format.js';
import { figuresMoved, toldFigures } from './told-figures.js';
import {
  analyze,
  arrivalRateAt,
  fileTimeBehindAt,
  inferTriggerMs,
  newestGapCounts,
  sourceArrivalsAt,
  timeBehindOf,
  type Analysis,
} from './query-analysis.js';
import {
  boundStateText,
  TRACKER_STATE_MAX_BYTES,
  TRACKER_STATE_VERSION,
  trackerStateProblem,
  TrackerStateError,
  utf8Length,
  type CoolingIncidentState,
  type OpenIncidentState,
  type TrackerState,
} from './tracker-state.js';
import type { Health, Incident, IncidentChange, IncidentKind, IncidentMetrics, LiveFacts, QueryReport, QuerySnapshot } from './types.js';

export type { TrackerState };
export { TrackerStateError };

type BatchDetector = (ctx: DetectorContext) => Finding;

/** Detectors judged on every batch, in report order. */
const BATCH_DETECTORS: readonly { kind: IncidentKind; detect: BatchDetector }[] = [
  { kind: 'lag', detect: detectLag },
  { kind: 'data_loss_risk', detect: detectDataLossRisk },
  { kind: 'state_growth', detect: detectStateGrowth },
  { kind: 'slow_repartition', detect: detectSlowRepartition },
];

/** Consecutive "back to normal" batches before an incident resolves. */
const CLEAR_BATCHES: Partial<Record<IncidentKind, number>> = { slow_repartition: 1, stalled: 1 };
const MAX_RESOLVED = 8;
/** Batches reading data with latest offsets at their end that show the source reports latest as of planning. */
const PLANNING_ZEROS = 3;
/** Kinds whose relapse within the cool-down re-opens the same incident (stalls and repartitions are events of their own). */
const RELAPSING: ReadonlySet<IncidentKind> = new Set<IncidentKind>(['lag', 'state_growth', 'data_loss_risk']);
/**
 * Causes and advice of an open incident are rebuilt every `EXPLAIN_EVERY` batches and no more often
 * than every `EXPLAIN_MIN_MS` of progress time: on a 1 s trigger ten batches are ten seconds, and
 * an alert's causes need not move faster than a person reads them.
 */
const EXPLAIN_EVERY = 10;
const EXPLAIN_MIN_MS = 5 * 60_000;

export class QueryTracker {
  private readonly options: ResolvedEngineOptions;
  private ring: FeatureRing;
  private facts: QueryFacts | null = null;
  private runId: string | null = null;
  private lastSeenMs: number | null = null;
  private batches = 0;
  private open: Partial<Record<IncidentKind, OpenIncidentState>> = {};
  private resolved: Incident[] = [];
  private cooling: Partial<Record<IncidentKind, CoolingIncidentState>> = {};
  /** The newest stall or restart after downtime, while its catch-up may still be under way. */
  private disruption: Disruption | null = null;
  /** A Kafka cap binding with no backlog figure, followed past the ring (cap-binding.ts). */
  private capBound: CapBound | null = null;
  private analysisCache: Analysis | null = null;
  private watermark: WatermarkWatch = { startMs: null, nowMs: null, delayMs: null };
  private lastReportRows = 0;
  /** Most rows any batch of the current run read, its first batch left out (see observe). */
  private runMaxRows = 0;
  /**
   * Batches in a row that read data yet left Kafka's latest offsets at their end, up to
   * PLANNING_ZEROS (kept there until a batch says otherwise): the source reports latest offsets as
   * of planning (open-source Spark, Databricks before 17.1), so what arrived while a batch ran is
   * behind too.
   */
  private planningZeros = 0;
  /**
   * Trigger interval inferred from the ring, refreshed every few batches (it rarely changes);
   * undefined until first inferred. Null (batches back to back) is refreshed only when a batch adds
   * a gap to infer from: an overloaded query would otherwise rescan its ring on every batch.
   */
  private inferredTriggerMs: number | null | undefined = undefined;
  /**
   * Open incidents whose summary and metrics were last described lazily (Finding.describe): built
   * before anything reads the incident (a change, the report, the saved state).
   */
  private untold: Partial<Record<IncidentKind, { incident: Incident; describe: () => { summary: string; metrics: IncidentMetrics }; atMs: number }>> = {};
  /**
   * Reports not taken as they came, since this tracker was created or restored (not part of its
   * state): callers tell people, since a skipped report would otherwise vanish without a word.
   */
  readonly irregular: IrregularReports = { older: 0, duplicate: 0, misdated: 0 };

  private constructor(
    readonly id: string,
    public name: string | null,
    options: EngineOptions = {},
  ) {
    this.options = resolveEngineOptions(options);
    this.ring = new FeatureRing(TUNING.ringSize);
  }

  static create(id: string, name: string | null, options?: EngineOptions): QueryTracker {
    return new QueryTracker(id, name, options);
  }

  static restore(state: TrackerState, options?: EngineOptions): QueryTracker {
    // Every field read below, and by observe() after it, has the type assumed: a state that parses
    // but is not one would throw on every batch instead (the caller starts afresh on this error).
    const problem = trackerStateProblem(state);
    if (problem !== null) throw new TrackerStateError(`tracker state ${problem}`);
    const tracker = new QueryTracker(state.id, typeof state.name === 'string' ? state.name : null, options);
    tracker.ring = FeatureRing.fromJSON(state.ring, TUNING.ringSize);
    tracker.facts = state.facts ?? null;
    tracker.runId = typeof state.runId === 'string' ? state.runId : null;
    tracker.lastSeenMs = typeof state.lastSeenMs === 'number' ? state.lastSeenMs : null;
    tracker.batches = typeof state.batches === 'number' ? state.batches : tracker.ring.size;
    tracker.open = typeof state.open === 'object' && state.open !== null ? { ...state.open } : {};
    tracker.resolved = Array.isArray(state.resolved) ? state.resolved.slice(-MAX_RESOLVED) : [];
    if (state.watermark && typeof state.watermark === 'object') tracker.watermark = { ...state.watermark };
    tracker.lastReportRows = typeof state.lastReportRows === 'number' ? state.lastReportRows : 0;
    tracker.planningZeros = Number.isFinite(state.planningZeros) ? Math.min(Math.max(state.planningZeros!, 0), PLANNING_ZEROS) : 0;
    tracker.runMaxRows = typeof state.runMaxRows === 'number' ? state.runMaxRows : maxRowsOfRun(tracker.ring.all());
    if (typeof state.cooling === 'object' && state.cooling !== null) tracker.cooling = { ...state.cooling };
    if (typeof state.disruption === 'object' && state.disruption !== null) tracker.disruption = { ...state.disruption };
    if (typeof state.capBound === 'object' && state.capBound !== null) tracker.capBound = { ...state.capBound };
    return tracker;
  }

  /** Feeds one progress report; returns the incident changes it causes. */
  observe(p: Progress): IncidentChange[] {
    if (p.name !== null) this.name = p.name;
    const last = this.ring.last();
    let progress = p.timestampMissing && last ? { ...p, timestampMs: last.t + Math.max(last.d, 1) } : p;
    const sameRun = this.runId !== null && progress.runId === this.runId;
    if (last) {
      // Spark numbers a query's batches in order (across restarts on one checkpoint too): within a
      // run a lower batchId is older whatever its timestamp says.
      const batchOrder = progress.batchId !== null && last.batchId !== null ? Math.sign(progress.batchId - last.batchId) : 0;
      if (sameRun && batchOrder < 0) return this.skip('older');
      // A later batch that starts before the newest one ended (Spark starts it only after): misdated.
      const misdated = batchOrder > 0 ? progress.timestampMs < last.t + last.d : progress.timestampMs < last.t;
      if (misdated && !p.timestampMissing) {
        const placed = batchOrder > 0 ? this.reconcileMisdated(progress, sameRun) : null;
        if (!placed) return this.skip('older');
        progress = placed; // of a later batch: no repeat of `last`, which is all `last` is read for below
      }
    }
    const repeat = last !== undefined && progress.batchId !== null && progress.batchId === last.batchId;
    // The very same report again (an at-least-once listener sink, overlapping reads): nothing new.
    if (repeat && sameRun && progress.timestampMs === last.t && progress.batchDurationMs === last.d) return this.skip('duplicate');
    const end = progress.timestampMs + progress.batchDurationMs;
    this.lastSeenMs = Math.max(this.lastSeenMs ?? end, end);
    this.lastReportRows = progress.numInputRows;
    if (repeat && progress.numInputRows === 0 && sameRun) {
      // A no-data report keeps the batchId of the last batch: the query is alive and idle.
      return this.resolveStalled(last.batchId, end);
    }

    const features = extractFeatures(progress, this.runId);
    const previous = repeat ? this.ring.all().slice(0, -1) : this.ring.all();
    features.arrival = arrivalRateAt(previous, features);
    if (features.kLatest.length > 0) features.kArrival = sourceArrivalsAt(previous, features);
    if (features.rows > 0 && !features.restart && features.kafkaBehind !== null) {
      if (features.kafkaBehind === 0) this.planningZeros = Math.min(this.planningZeros + 1, PLANNING_ZEROS);
      // Until it is established the zeros must come in a row: read after the batch, one now and
      // then only says nothing arrived while it ran. Once it is, only a batch behind that no cap
      // held back (it read less than the most the run has, by more than floored shares of a cap
      // lose) says the offsets were read after it.
      else if (this.planningZeros < PLANNING_ZEROS || features.rows < this.runMaxRows - Math.max(capTolerance(this.runMaxRows, this.facts?.kafkaPartitions ?? 1), 0.005 * this.runMaxRows)) {
        this.planningZeros = 0;
      }
    }
    features.timeBehindSec = timeBehindOf(features, this.planningZeros >= PLANNING_ZEROS) ?? fileTimeBehindAt(previous, features);
    if (repeat) {
      // A retried batch (same batchId): the newer report replaces the older one.
      if (last!.restart) features.restart = 1;
      this.ring.replaceLast(features);
    } else {
      this.ring.push(features);
      this.batches += 1;
    }
    // A run's first batch may replay the previous run's last, planned under an earlier cap.
    this.runMaxRows = features.restart || this.batches === 1 ? 0 : Math.max(this.runMaxRows, features.rows);
    this.runId = progress.runId || this.runId;
    if (this.facts === null || this.batches % 16 === 1 || features.restart || features.repartitionMs !== null) {
      this.facts = extractFacts(progress);
    }
    this.analysisCache = null;
    this.watchWatermark(progress, features);
    const disrupted = disruptionAt(this.ring.all());
    this.disruption = disrupted ?? this.disruption;
    // Remembered for as long as a catch-up can matter: twice the budget after it began, and for
    // DISRUPTION_MIN_BATCHES batches of it (on a slow trigger a catch-up's batches can take the
    // budget in a few, before their trend says anything).
    if (
      this.disruption &&
      end - this.disruption.catchUpFromMs > 2 * TUNING.catchUpBudgetSec * 1000 &&
      batchesSince(this.ring.all(), this.disruption.catchUpFromMs) >= DISRUPTION_MIN_BATCHES
    ) {
      this.disruption = null;
    }
    this.capBound = nextCapBound(this.capBound, this.ring.all(), this.analysis(), this.facts.kafkaPartitions, this.runMaxRows, disrupted !== null);

    const changes = this.resolveStalled(features.batchId, end);
    // One context for all detectors (allocation on the hot path matters at 20k events/s).
    const ctx = this.context(end) as DetectorContext;
    ctx.openKinds = Object.keys(this.open);
    // An index loop over plain objects: for…of and destructuring go through the iterator protocol
    // until the function is optimized, which a one-shot CLI run spends much of its time before.
    for (let i = 0; i < BATCH_DETECTORS.length; i += 1) {
      const { kind, detect } = BATCH_DETECTORS[i]!;
      const open = this.open[kind];
      ctx.memo = open?.memo ?? null;
      // Causes and advice are rebuilt on opening and every few batches while open, not every batch.
      ctx.explain = !open || this.explainDue(open.memo, features.t);
      const change = this.apply(kind, detect(ctx), features.batchId, features.t);
      if (change) changes.push(change);
    }
    return changes;
  }

  /**
   * Open incidents whose figures moved (told-figures.ts) since they were last told, at least
   * `TUNING.refreshFiguresMs` later by the time they are of (a batch's; a stall's silence, the last
   * tick's): an 'updated' change each, so an alert open for hours does not show the numbers it
   * opened with. Apart from `observe` and `tick`, whose changes are what the detectors decide (the
   * CLI reports them): the worker asks after each detect run.
   */
  refreshFigures(): IncidentChange[] {
    const changes: IncidentChange[] = [];
    for (const kind of Object.keys(this.open) as IncidentKind[]) {
      const state = this.open[kind]!;
      this.tell(kind);
      const atMs = state.incident.figuresAt === undefined ? Number.NaN : isoMs(state.incident.figuresAt);
      if (!Number.isFinite(atMs)) continue;
      // A state saved before the told figures were kept: what the alert shows is not known, so they
      // are told once, a refresh period from now.
      if (state.toldAtMs === undefined || state.told === undefined) {
        state.toldAtMs = atMs;
        state.told = {};
        continue;
      }
      if (atMs - state.toldAtMs < TUNING.refreshFiguresMs) continue;
      if (figuresMoved(state.told, toldFigures(state.incident.metrics))) {
        this.explainNow(kind, state);
        changes.push(this.change('updated', state.incident));
      }
    }
    return changes;
  }

  /** Judges what depends on the clock (a stall) at `nowMs`; `live` adds what is known beside the progress. */
  tick(nowMs: number, live: LiveFacts = {}): IncidentChange[] {
    if (this.ring.size === 0) return [];
    const ctx = { ...this.context(nowMs, live), memo: this.open.stalled?.memo ?? null, explain: true, openKinds: Object.keys(this.open) };
    const finding = detectStalled(ctx);
    if (finding.verdict !== 'fire') return [];
    const openedAtMs = silentSinceMs(ctx) + stallThresholdMs(ctx);
    // Dated from when the silence became a stall; its figures (the silence) are of now.
    const change = this.apply('stalled', finding, this.ring.last()!.batchId, Math.min(openedAtMs, nowMs), nowMs);
    return change ? [change] : [];
  }

  /** The query's report: open incidents first, then resolved ones, newest first within each. */
  report(nowMs?: number, live: LiveFacts = {}): QueryReport {
    this.tell();
    const open = (Object.keys(this.open) as IncidentKind[]).map((kind) => this.withFreshCauses(kind, this.open[kind]!));
    if (nowMs !== undefined && !this.open.stalled && this.ring.size > 0) {
      // A stall judged at `nowMs` without changing the tracker (tick() records it).
      const ctx = { ...this.context(nowMs, live), memo: null, explain: true, openKinds: Object.keys(this.open) };
      const finding = detectStalled(ctx);
      if (finding.verdict === 'fire') {
        const at = Math.min(silentSinceMs(ctx) + stallThresholdMs(ctx), nowMs);
        open.push(this.newIncident('stalled', finding, this.ring.last()!.batchId, at, nowMs));
      }
    }
    // ISO timestamps of one format: code-point order is time order.
    const byOpened = (a: Incident, b: Incident) => (a.openedAt < b.openedAt ? 1 : a.openedAt > b.openedAt ? -1 : 0);
    const incidents = [...open.sort(byOpened), ...[...this.resolved].sort(byOpened)];
    return { id: this.id, name: this.name, health: healthOf(open), incidents };
  }

  /** The query's clock: the latest batch end (or idle report) read, epoch ms; a misdated report does not move it. */
  get clockMs(): number | null {
    return this.lastSeenMs;
  }

  snapshot(): QuerySnapshot {
    const last = this.ring.last();
    const analysis = last ? this.analysis() : null;
    const open = Object.values(this.open).map((state) => state!.incident);
    const unreported = backlogUnreported(this.ring.all(), this.facts, analysis, this.runMaxRows);
    return {
      id: this.id,
      name: this.name,
      health: healthOf(open),
      // Read as the last batch's duration when nothing else says, which a binding cap makes wrong.
      timeBehindSec: unreported ? null : (analysis?.timeBehindSec ?? null),
      batchDurationMs: last?.d ?? null,
      triggerMs: analysis ? analysis.triggerMs : null,
      stateRows: last?.stateRows ?? null,
      // Below the parser's oldest plausible time only when no report said when it ran: unknown.
      lastProgressAt: this.lastSeenMs === null || this.lastSeenMs < MIN_TIMESTAMP_MS ? null : iso(this.lastSeenMs),
      lastBatchId: last?.batchId ?? null,
      // Under a binding cap with no backlog figure the arrival estimate is only what the cap admits.
      arrivalRate: unreported ? null : (analysis?.arrivalRate ?? null),
      processingRate: last?.procRate ?? analysis?.capacity ?? null,
      openIncidents: Object.keys(this.open) as IncidentKind[],
      ...filesFields(last ?? null, analysis),
      backlogUnreported: unreported,
    };
  }

  toState(): TrackerState {
    this.tell();
    // A copy: the bounds below must not change what the tracker holds.
    const state: TrackerState = structuredClone({
      v: TRACKER_STATE_VERSION,
      id: this.id,
      name: this.name,
      ring: this.ring.toJSON(),
      facts: this.facts,
      runId: this.runId,
      lastSeenMs: this.lastSeenMs,
      batches: this.batches,
      open: this.open,
      resolved: this.resolved,
      watermark: this.watermark,
      lastReportRows: this.lastReportRows,
      runMaxRows: this.runMaxRows,
      planningZeros: this.planningZeros,
      cooling: this.cooling,
      disruption: this.disruption,
      capBound: this.capBound,
    } satisfies TrackerState);
    // Text from the query is cut where it enters the state, so the bound never costs the ring for it.
    boundStateText(state);
    // Bounded whatever else happened: drop the oldest resolved incidents, then the oldest features.
    while (utf8Length(JSON.stringify(state)) > TRACKER_STATE_MAX_BYTES) {
      if (state.resolved.length > 0) state.resolved = state.resolved.slice(1);
      else if (state.ring.length > 8) state.ring = state.ring.slice(Math.ceil(state.ring.length / 4));
      else break;
    }
    return state;
  }

  private analysis(): Analysis {
    if (!this.analysisCache) {
      const inferred = this.inferredTriggerMs;
      const stale = inferred === undefined || this.batches % 8 === 1 || (inferred === null && newestGapCounts(this.ring.all()));
      if (this.options.triggerMs === null && stale) {
        this.inferredTriggerMs = inferTriggerMs(this.ring.all());
      }
      this.analysisCache = analyze(this.ring.all(), this.options.triggerMs, this.inferredTriggerMs, this.runMaxRows, this.facts?.kafkaPartitions ?? 0);
    }
    return this.analysisCache;
  }

  private context(nowMs: number, live: LiveFacts = {}): Omit<DetectorContext, 'memo' | 'explain' | 'openKinds'> {
    const features = this.ring.all();
    // A run start counts only when it is newer than everything reported (a restart not yet heard from).
    let runStartedAtMs: number | null = null;
    if (live.runStartedAtMs != null) {
      const latest = features[features.length - 1];
      const lastEndMs = Math.max(this.lastSeenMs ?? -Infinity, latest ? latest.t + latest.d : -Infinity);
      if (live.runStartedAtMs > lastEndMs) runStartedAtMs = live.runStartedAtMs;
    }
    return {
      features,
      latest: features[features.length - 1]!,
      facts: this.facts ?? emptyFacts(),
      analysis: this.analysis(),
      options: this.options,
      nowMs,
      lastSeenMs: this.lastSeenMs ?? nowMs,
      runStartedAtMs,
      watermark: this.watermark,
      batches: this.batches,
      lastReportRows: this.lastReportRows,
      runMaxRows: this.runMaxRows,
      lastStallOpenedAt: this.lastStallOpenedAt(),
      disruption: this.disruption,
      lagResolvedAtMs: this.cooling.lag?.resolvedAtMs ?? null,
      capBound: this.capBound,
    };
  }

  private lastStallOpenedAt(): string | null {
    for (let i = this.resolved.length - 1; i >= 0; i -= 1) {
      if (this.resolved[i]!.kind === 'stalled') return this.resolved[i]!.openedAt;
    }
    return null;
  }

  /** Tracks how far the watermark moved since state was last removed (see state-growth.ts). */
  private watchWatermark(p: Progress, f: BatchFeatures): void {
    const wm = p.eventTime.watermark ? isoMs(p.eventTime.watermark) : Number.NaN;
    if (!Number.isFinite(wm) || wm <= 0) return;
    const max = p.eventTime.max ? isoMs(p.eventTime.max) : Number.NaN;
    if (Number.isFinite(max) && max >= wm) this.watermark.delayMs = max - wm;
    if (this.watermark.startMs === null || f.stateRemoved > 0 || wm < this.watermark.startMs) {
      this.watermark.startMs = wm;
    }
    this.watermark.nowMs = wm;
  }

  private skip(reason: 'older' | 'duplicate'): IncidentChange[] {
    this.irregular[reason] += 1;
    return [];
  }

  /**
   * `p` is of a later batch than the newest one read, yet dated before that one ended. Spark starts
   * a batch only after the one before it ended, so one of the timestamps is wrong: either the newest
   * rows, those ending after `p`'s date (a row stamped in the future, a driver clock that jumped
   * ahead and came back), or `p`'s own (dated back). Whether the move fits decides which: those rows,
   * their gaps kept, placed from where Spark would have started the first of them (the next multiple
   * of the trigger interval after the batch before them started, or that batch's end when it ran
   * over; never before that end, no later than lets them end by `p`'s start), must end by `p`'s
   * start. Then they move there, keeping their counts, and the clock with them: left ahead, their
   * time would be what every later report is judged older than (and skipped) and what silence is
   * measured from (no stall). When they do not fit (nor when no batch is before them), `p` is the
   * misdated one and the ring is left as it is: `p` is kept with its time placed after the newest,
   * as a report without one; of another run and dated before the newest started it is left to be
   * skipped. Either way the ring stays a timeline: times in order, no batch before the last ended.
   */
  private reconcileMisdated(p: Progress, sameRun: boolean): Progress | null {
    const all = this.ring.all();
    const newest = all[all.length - 1]!;
    // The rows that end after `p` started (the ring is a timeline: ends in order).
    let first = all.length;
    while (first > 0 && all[first - 1]!.t + all[first - 1]!.d > p.timestampMs) first -= 1;
    const before = first > 0 ? all[first - 1]! : null;
    const span = newest.t + newest.d - all[first]!.t;
    // The earliest they can start: when the batch before them ended.
    const earliest = before ? before.t + before.d : Number.POSITIVE_INFINITY;
    if (earliest + span > p.timestampMs) {
      // Of another run and dated before the newest started: left to be skipped, as older.
      if (!sameRun && p.timestampMs < newest.t) return null;
      this.irregular.misdated += 1;
      return { ...p, timestampMs: newest.t + Math.max(newest.d, 1) };
    }
    const triggerMs = this.options.triggerMs ?? this.inferredTriggerMs;
    const next = triggerMs ? (Math.floor(before!.t / triggerMs) + 1) * triggerMs : -Infinity;
    const start = Math.max(earliest, Math.min(next, p.timestampMs - span));
    const shift = all[first]!.t - start;
    const clock = start + span;
    const ring = new FeatureRing(TUNING.ringSize);
    for (let i = 0; i < all.length; i += 1) {
      if (i < first) {
        ring.push(all[i]!);
        continue;
      }
      // What depends on the gap to the batch before is judged again at the time it moved to.
      const previous = ring.all();
      const f: BatchFeatures = { ...all[i]!, t: all[i]!.t - shift };
      f.arrival = arrivalRateAt(previous, f);
      if (f.kLatest.length > 0) f.kArrival = sourceArrivalsAt(previous, f);
      f.timeBehindSec = timeBehindOf(f, this.planningZeros >= PLANNING_ZEROS) ?? fileTimeBehindAt(previous, f);
      ring.push(f);
    }
    this.ring = ring;
    this.analysisCache = null;
    this.irregular.misdated += all.length - first;
    // Times the tracker took from the misdated reports go back to the clock.
    this.lastSeenMs = clock;
    for (const state of Object.values(this.open)) {
      if (state!.memo.explainedAtMs !== undefined && state!.memo.explainedAtMs > clock) state!.memo.explainedAtMs = clock;
      if (state!.clearSinceMs !== undefined && state!.clearSinceMs > clock) state!.clearSinceMs = clock;
      if (state!.toldAtMs !== undefined && state!.toldAtMs > clock) state!.toldAtMs = clock;
      if (state!.incident.figuresAt !== undefined && isoMs(state!.incident.figuresAt) > clock) state!.incident.figuresAt = iso(clock);
    }
    for (const state of Object.values(this.cooling)) if (state!.resolvedAtMs > clock) state!.resolvedAtMs = clock;
    // Those that name a moved batch move with it.
    const firstT = all[first]!.t;
    const moved = (t: number) => t >= firstT;
    if (this.disruption && moved(this.disruption.batchT)) this.disruption = first === all.length - 1 ? disruptionAt(ring.all()) : null;
    if (this.capBound && moved(this.capBound.sinceMs)) {
      const slow = this.capBound.slowSinceMs;
      this.capBound = { ...this.capBound, sinceMs: this.capBound.sinceMs - shift, slowSinceMs: slow != null && moved(slow) ? slow - shift : slow };
    }
    return p;
  }

  private resolveStalled(batchId: number | null, atMs: number): IncidentChange[] {
    const state = this.open.stalled;
    if (!state) return [];
    return [this.resolve('stalled', state, batchId, atMs)];
  }

  /** `figuresAtMs`: the time the finding's figures are of, when not `atMs` (a stall's silence is of now). */
  private apply(kind: IncidentKind, finding: Finding, batchId: number | null, atMs: number, figuresAtMs = atMs): IncidentChange | null {
    const state = this.open[kind];
    if (!state) {
      if (finding.verdict !== 'fire') return null;
      const relapse = this.relapse(kind, finding, atMs, figuresAtMs);
      if (relapse) return relapse;
      const incident = this.newIncident(kind, finding, batchId, atMs, figuresAtMs);
      this.open[kind] = { incident, memo: { ...finding.memo, explainedAt: this.batches, explainedAtMs: atMs }, clearStreak: 0 };
      return this.change('opened', incident);
    }
    if (finding.verdict === 'clear') {
      if (state.clearStreak === 0) state.clearSinceMs = atMs;
      state.clearStreak += 1;
      return this.heldLongEnough(kind, state, atMs) ? this.resolve(kind, state, batchId, atMs) : null;
    }
    if (finding.verdict === 'hold') return null; // no new evidence either way
    state.clearStreak = 0;
    const incident = state.incident;
    const topCauseChanged = incident.causes[0]?.code !== finding.causes[0]?.code;
    const escalated = this.refresh(incident, finding, figuresAtMs);
    if (finding.memo) Object.assign(state.memo, finding.memo);
    if (finding.causes.length > 0) {
      state.memo.explainedAt = this.batches;
      state.memo.explainedAtMs = atMs;
    }
    return escalated || (topCauseChanged && finding.causes.length > 0) ? this.change('updated', incident) : null;
  }

  /** Takes a firing finding's view into an open incident; true when its severity escalated. */
  private refresh(incident: Incident, finding: Finding, atMs: number): boolean {
    // Severity only escalates while open: a number hovering at a threshold must not flap.
    const escalated = incident.severity === 'warning' && finding.severity === 'critical';
    if (escalated) incident.severity = 'critical';
    if (finding.describe) this.untold[incident.kind] = { incident, describe: finding.describe, atMs };
    else {
      delete this.untold[incident.kind];
      incident.summary = finding.summary;
      incident.metrics = finding.metrics;
      incident.figuresAt = iso(atMs);
    }
    if (finding.causes.length > 0) {
      incident.causes = finding.causes;
      incident.advice = finding.advice;
    } else if (finding.advice.length > 0 && incident.causes.length === 0) {
      // Advice of a finding that has no causes (a stall's) carries figures of its own: keep it current.
      incident.advice = finding.advice;
    }
    if (finding.aftermath) incident.aftermath = finding.aftermath;
    return escalated;
  }

  /**
   * An open incident as a report shows it: with its causes rebuilt from the latest batch when the
   * tracker's are older (`explainDue`), on a copy: reading a report must not change what the tracker
   * does next, so its summary and its causes say the same moment.
   */
  private withFreshCauses(kind: IncidentKind, state: OpenIncidentState): Incident {
    const detector = BATCH_DETECTORS.find((d) => d.kind === kind);
    const last = this.ring.last();
    if (!detector || !last || state.memo.explainedAt === this.batches) return state.incident;
    const ctx = this.context(last.t + last.d) as DetectorContext;
    ctx.memo = { ...state.memo };
    ctx.explain = true;
    ctx.openKinds = Object.keys(this.open);
    const finding = detector.detect(ctx);
    if (finding.verdict !== 'fire' || finding.causes.length === 0) return state.incident;
    return { ...state.incident, causes: finding.causes, advice: finding.advice };
  }

  /**
   * Rebuilds an open incident's causes and advice from the latest batch when they are older, for
   * an alert told now: its figures are of that batch, and causes rebuilt up to EXPLAIN_EVERY
   * batches before would show other rates beside them.
   */
  private explainNow(kind: IncidentKind, state: OpenIncidentState): void {
    const fresh = this.withFreshCauses(kind, state);
    if (fresh === state.incident) return;
    state.incident.causes = fresh.causes;
    state.incident.advice = fresh.advice;
    state.memo.explainedAt = this.batches;
    // A batch's start, as for causes explained while it was observed.
    state.memo.explainedAtMs = this.ring.last()!.t;
  }

  /** Whether an open incident's causes are old enough to rebuild (`EXPLAIN_EVERY`, `EXPLAIN_MIN_MS`). */
  private explainDue(memo: Record<string, number>, atMs: number): boolean {
    return this.batches - (memo.explainedAt ?? 0) >= EXPLAIN_EVERY && atMs - (memo.explainedAtMs ?? -Infinity) >= EXPLAIN_MIN_MS;
  }

  /**
   * Back to normal for long enough: `clearBatches` batches, and for lag also the hold period in
   * wall time (or `holdMaxBatches` batches when the trigger is short).
   */
  private heldLongEnough(kind: IncidentKind, state: OpenIncidentState, atMs: number): boolean {
    if (state.clearStreak < (CLEAR_BATCHES[kind] ?? TUNING.clearBatches)) return false;
    if (kind !== 'lag') return true;
    return atMs - (state.clearSinceMs ?? atMs) >= TUNING.lagHoldMs || state.clearStreak >= TUNING.holdMaxBatches;
  }

  /** Re-opens the incident of this kind that resolved within the cool-down, if any. */
  private relapse(kind: IncidentKind, finding: Finding, atMs: number, figuresAtMs: number): IncidentChange | null {
    const cooling = this.cooling[kind];
    if (!cooling) return null;
    delete this.cooling[kind];
    const batchesSince = cooling.resolvedAtBatch === undefined ? Infinity : this.batches - cooling.resolvedAtBatch;
    if (atMs - cooling.resolvedAtMs > TUNING.relapseCooldownMs && batchesSince > TUNING.relapseCooldownBatches) return null;
    let index = this.resolved.length - 1;
    while (index >= 0 && this.resolved[index]!.kind !== kind) index -= 1;
    if (index < 0) return null;
    const incident = this.resolved.splice(index, 1)[0]!;
    incident.resolvedAt = null;
    incident.resolvedAtBatchId = null;
    incident.relapses = (incident.relapses ?? 0) + 1;
    incident.relapsedAt = iso(atMs);
    this.refresh(incident, finding, figuresAtMs);
    // The level before the episode is still the normal one, not what the relapse started from.
    this.open[kind] = { incident, memo: { ...finding.memo, ...cooling.memo, explainedAt: this.batches, explainedAtMs: atMs }, clearStreak: 0 };
    return this.change('updated', incident);
  }

  private newIncident(kind: IncidentKind, finding: Finding, batchId: number | null, atMs: number, figuresAtMs = atMs): Incident {
    const { summary, metrics } = finding.describe ? finding.describe() : finding;
    return {
      kind,
      severity: finding.severity,
      openedAtBatchId: batchId,
      openedAt: iso(atMs),
      resolvedAtBatchId: null,
      resolvedAt: null,
      summary,
      causes: finding.causes,
      advice: finding.advice,
      metrics,
      ...(finding.aftermath ? { aftermath: finding.aftermath } : {}),
      figuresAt: iso(figuresAtMs),
    };
  }

  private resolve(kind: IncidentKind, state: OpenIncidentState, batchId: number | null, atMs: number): IncidentChange {
    delete this.open[kind];
    if (RELAPSING.has(kind)) this.cooling[kind] = { resolvedAtMs: atMs, resolvedAtBatch: this.batches, memo: state.memo };
    const incident = state.incident;
    incident.resolvedAtBatchId = batchId;
    incident.resolvedAt = iso(atMs);
    this.resolved.push(incident);
    if (this.resolved.length > MAX_RESOLVED) this.resolved.shift();
    return this.change('resolved', incident);
  }

  /** Describes the incidents left untold (all, or the one of `kind`). */
  private tell(kind?: IncidentKind): void {
    for (const key of kind ? [kind] : (Object.keys(this.untold) as IncidentKind[])) {
      const untold = this.untold[key];
      if (!untold) continue;
      delete this.untold[key];
      const { summary, metrics } = untold.describe();
      untold.incident.summary = summary;
      untold.incident.metrics = metrics;
      untold.incident.figuresAt = iso(untold.atMs);
    }
  }

  private change(type: IncidentChange['type'], incident: Incident): IncidentChange {
    this.tell(incident.kind);
    const state = this.open[incident.kind];
    // What the alert now shows, so refreshFigures tells it again only once it moved.
    if (state?.incident === incident) {
      const at = incident.figuresAt === undefined ? Number.NaN : isoMs(incident.figuresAt);
      if (Number.isFinite(at)) state.toldAtMs = at;
      state.told = toldFigures(incident.metrics);
    }
    return { type, queryId: this.id, queryName: this.name, incident: structuredClone(incident) };
  }
}

/** Batches of a catch-up the tracker remembers its disruption for, however long they take. */
const DISRUPTION_MIN_BATCHES = 8;

/** runMaxRows of the newest run in `features`, its first batch left out (a state saved before it was kept). */
function maxRowsOfRun(features: readonly BatchFeatures[]): number {
  let max = 0;
  for (let i = features.length - 1; i > 0 && !features[i]!.restart; i -= 1) max = Math.max(max, features[i]!.rows);
  return max;
}

/** Reports a tracker did not take as they came (`QueryTracker.irregular`). */
export interface IrregularReports {
  /** Skipped: of an earlier batch of the run than one already read, or else dated before it. */
  older: number;
  /** Skipped: the very same report again (an at-least-once sink, overlapping reads). */
  duplicate: number;
  /** Kept, their time set from the batches around them: dated out of line with their batchId. */
  misdated: number;
}

function healthOf(open: Incident[]): Health {
  if (open.some((incident) => incident.severity === 'critical')) return 'critical';
  return open.length > 0 ? 'warning' : 'ok';
}

function emptyFacts(): QueryFacts {
  return {
    sourceKinds: [],
    kafkaPartitions: 0,
    kafkaTopics: [],
    sink: '',
    stateProvider: null,
    shufflePartitions: null,
    stateOperators: [],
    eventTimeSpreadMs: null,
  };
}

export type { BatchFeatures };

/**
 * Files waiting (Delta, Auto Loader) and whether time behind is an estimate. A Delta source's
 * offsets name a table version and a file index inside it, so the files a batch read (and with
 * them the rate files arrive) are not in its progress: its time behind stays unknown and people
 * read the files waiting and their trend instead.
 */
/**
 * See QuerySnapshot.backlogUnreported: Kafka only, no latest offsets and no behind-latest metrics,
 * and the newest batches read at a cap as the lag detector judges one (admission-cap.ts: a steady
 * uncapped feed wobbles by more, and its backlog is in the batch durations).
 */
function backlogUnreported(features: readonly BatchFeatures[], facts: QueryFacts | null, analysis: Analysis | null, runMaxRows: number): boolean {
  const last = features[features.length - 1];
  if (!last || !analysis || !facts || analysis.signal !== 'duration' || analysis.cappedRows === null) return false;
  if (facts.sourceKinds.length === 0 || facts.sourceKinds.some((kind) => kind !== 'kafka')) return false;
  if (last.kafkaLatest !== null || last.kafkaBehind !== null) return false;
  const cap = analysis.cappedRows;
  const recent = features.slice(-5);
  return (
    recent.length === 5 &&
    recent.every((f) => readsAtCap(f.rows, cap, facts.kafkaPartitions)) &&
    !capExceededInRun(runMaxRows, cap, facts.kafkaPartitions)
  );
}

function filesFields(
  last: { filesOutstanding: number | null } | null,
  analysis: { signal: string; trendPerMin: number | null; timeBehindSec: number | null } | null,
): Pick<QuerySnapshot, 'timeBehindEstimated' | 'filesWaiting' | 'filesWaitingTrendPerMin'> {
  const files = last?.filesOutstanding ?? null;
  const fileSignal = analysis?.signal === 'files';
  const trend = fileSignal && analysis!.trendPerMin !== null ? Math.round(analysis!.trendPerMin * 10) / 10 : null;
  return {
    timeBehindEstimated: fileSignal && analysis!.timeBehindSec !== null,
    filesWaiting: files,
    filesWaitingTrendPerMin: files !== null && fileSignal ? trend : null,
  };
}
