/**
 * Scores one random draw: each labelled lag episode is found when a lag incident opened between its
 * earliest allowed report (EARLY_TOLERANCE_REPORTS before the onset, labels.ts) and its deadline
 * (deadline.ts); every distinct lag incident opened from then to AFTERMATH_MS after the episode
 * ends counts toward "incidents per episode"; a stall is found when a stalled incident opened while
 * the batch hung. Openings of another kind inside a lag episode (a stall noticed while giant batches
 * run, a data-loss forecast) are not false alarms but are counted by kind (`alsoOpened`); every
 * other opening is a false alarm.
 */

import type { IncidentKind } from '../../diagnosis/types.js';
import { AFTERMATH_MS } from '../random/deadline.js';
import type { LagLabel, StallLabel } from '../random/labels.js';
import type { SimulatedRandom } from '../random/simulate.js';
import type { Family, ReportingMode } from '../random/types.js';
import type { RandomQueryRun } from './run-random.js';
import { incidentKey, openingOf, openings, type Opening } from './score.js';

export interface EpisodeScore {
  query: number;
  label: LagLabel;
  /** A lag incident opened inside [onset − EARLY_TOLERANCE_REPORTS, deadline]. */
  found: boolean;
  /** Opened, but only after the deadline (still inside the episode). */
  late: boolean;
  /** The first lag incident attributed to the episode: reports and minutes from the onset. */
  delayReports: number | null;
  delayMin: number | null;
  /** Distinct lag incidents opened from 2 reports before the onset to AFTERMATH_MS after the end. */
  incidents: number;
  /**
   * A lag incident opened before that (a false alarm) was still open at the onset: the channel had
   * an open alert through it, though none opened for it. Absent in files written before it was recorded.
   */
  openAtOnset?: boolean;
  /** Reports from true recovery to the last of those incidents resolving (null: no recovery, or still open). */
  resolutionDelayReports: number | null;
  /** True recovery happened but the incident was still open when the run ended. */
  unresolved: boolean;
  staticDelayReports: number | null;
  staticDelayMin: number | null;
}

export interface StallScore {
  query: number;
  label: StallLabel;
  found: boolean;
  /** From the previous report's end to the opening, minutes. */
  delayMin: number | null;
}

export interface Alarm {
  query: number;
  kind: IncidentKind;
  index: number;
  atMs: number;
  /** The incident's summary as last reported. */
  summary: string;
  /** Its summary when it opened: why it opened (absent in files written before it was recorded). */
  openedSummary?: string;
}

/** What a false alarm said when it opened; its latest text for files that did not record that. */
export function alarmOpeningText(alarm: Alarm): string {
  return alarm.openedSummary ?? alarm.summary;
}

export interface DrawScore {
  seed: number;
  family: Family;
  mode: ReportingMode;
  /** Simulated query time judged, hours (summed over the draw's queries). */
  queryHours: number;
  episodes: EpisodeScore[];
  stalls: StallScore[];
  falseAlarms: Alarm[];
  tolerated: number;
  /** Those tolerated openings by kind. */
  alsoOpened: Partial<Record<IncidentKind, number>>;
  /** Stalled incidents opened while the query was down between two runs (tolerated, see below). */
  downtimeStalls: number;
  parseErrors: number;
  /** What each query of the draw was (family, one line, admission cap), for the worst-draws list and the cap table. */
  queries: { family: string; description: string; reports: number; capped: boolean; triggerMs: number; units: number | null }[];
}

/**
 * Whether a lag incident opened before report `before`, other than one an earlier episode claimed
 * (`claimed`: its own incident, still open), was still open at report `at`.
 */
function lagOpenAt(changes: RandomQueryRun['changes'], before: number, at: number, claimed: ReadonlySet<string>): boolean {
  const early = new Set<string>();
  const open = new Set<string>();
  for (const { index, change } of changes) {
    if (index > at) break;
    if (change.incident.kind !== 'lag') continue;
    const key = incidentKey(change.incident);
    if (change.type === 'opened' && index < before && !claimed.has(key)) early.add(key);
    if (!early.has(key)) continue;
    // An update after a resolution is a relapse: the incident is open again.
    if (change.type === 'resolved') open.delete(key);
    else open.add(key);
  }
  return open.size > 0;
}

/** Each time an incident came back within its cool-down, as an opening at that report. */
function relapses(changes: RandomQueryRun['changes']): Opening[] {
  const out: Opening[] = [];
  const seen = new Map<string, number>();
  for (const { index, atMs, change } of changes) {
    const n = change.incident.relapses ?? 0;
    const key = incidentKey(change.incident);
    if (n > (seen.get(key) ?? 0)) {
      seen.set(key, n);
      out.push(openingOf(index, atMs, change.incident));
    }
  }
  return out;
}

export function scoreRandom(sim: SimulatedRandom, runs: RandomQueryRun[]): DrawScore {
  const episodes: EpisodeScore[] = [];
  const stalls: StallScore[] = [];
  const falseAlarms: Alarm[] = [];
  let tolerated = 0;
  let downtimeStalls = 0;
  const alsoOpened: Partial<Record<IncidentKind, number>> = {};
  let parseErrors = 0;
  let queryMs = 0;
  sim.queries.forEach((q, query) => {
    const run = runs[query]!;
    parseErrors += run.parseErrors.length;
    queryMs += q.nowMs - sim.scenario.startMs;
    // A relapse re-opens a resolved incident (same id, same Slack message, a line in its thread):
    // the channel hears it as an opening, so it counts as one where it happens.
    const opened = [...openings(run.changes), ...relapses(run.changes)].sort((a, b) => a.index - b.index);
    const claimed = new Set<Opening>();
    const lagLabels = q.labels.filter((l): l is LagLabel => l.kind === 'lag');
    const inEpisode = (o: Opening, l: LagLabel) => o.index >= l.earliestIndex && o.atMs <= l.endMs + AFTERMATH_MS;
    for (const label of lagLabels) {
      // Incidents earlier episodes claimed, before this one's are.
      const claimedKeys = new Set([...claimed].map((o) => incidentKey(o.latest)));
      const mine = opened.filter((o) => o.kind === 'lag' && !claimed.has(o) && inEpisode(o, label));
      for (const o of mine) claimed.add(o);
      const first = mine[0] ?? null;
      const found = mine.some((o) => o.index <= label.deadlineIndex);
      let resolutionDelayReports: number | null = null;
      let unresolved = false;
      const lastIncident = mine[mine.length - 1];
      if (label.recoveryIndex !== null && lastIncident) {
        const key = incidentKey(lastIncident.latest);
        const last = [...run.changes].reverse().find((c) => incidentKey(c.change.incident) === key);
        if (last?.change.type === 'resolved') resolutionDelayReports = last.index - label.recoveryIndex;
        else unresolved = true;
      }
      const staticIndex = run.staticFires.findIndex((fires, i) => fires && i >= label.earliestIndex && i <= label.endIndex);
      episodes.push({
        query,
        label,
        found,
        late: !found && first !== null,
        delayReports: first ? first.index - label.onsetIndex : null,
        delayMin: first ? (first.atMs - label.onsetMs) / 60_000 : null,
        incidents: new Set(mine.map((o) => incidentKey(o.latest))).size,
        openAtOnset: lagOpenAt(run.changes, label.earliestIndex, label.onsetIndex, claimedKeys),
        resolutionDelayReports,
        unresolved,
        staticDelayReports: staticIndex >= 0 ? staticIndex - label.onsetIndex : null,
        staticDelayMin: staticIndex >= 0 ? (q.batches[staticIndex]!.endMs - label.onsetMs) / 60_000 : null,
      });
    }
    for (const label of q.labels.filter((l): l is StallLabel => l.kind === 'stalled')) {
      const o = opened.find((x) => x.kind === 'stalled' && !claimed.has(x) && x.atMs > label.fromMs && x.atMs <= label.toMs) ?? null;
      if (o) claimed.add(o);
      stalls.push({ query, label, found: o !== null, delayMin: o ? (o.atMs - label.fromMs) / 60_000 : null });
    }
    // A query that is down between two runs makes no progress: the engine, fed progress alone, says
    // so (stalled). The product does not: it judges stalls only while the job runs (job-runs
    // liveness), which a progress log does not carry. Tolerated, counted apart.
    const inDowntime = (o: Opening) =>
      q.batches.some((b, i) => i > 0 && b.truth.firstOfRun && o.atMs > q.batches[i - 1]!.endMs && o.atMs <= b.truth.startMs);
    for (const o of opened) {
      if (claimed.has(o)) continue;
      if (o.kind === 'stalled' && inDowntime(o)) {
        tolerated += 1;
        downtimeStalls += 1;
        continue;
      }
      if (o.kind !== 'lag' && lagLabels.some((l) => inEpisode(o, l))) {
        tolerated += 1;
        alsoOpened[o.kind] = (alsoOpened[o.kind] ?? 0) + 1;
        continue;
      }
      falseAlarms.push({ query, kind: o.kind, index: o.index, atMs: o.atMs, summary: o.latest.summary, openedSummary: o.openedSummary });
    }
  });
  return {
    seed: sim.scenario.seed,
    family: sim.scenario.family,
    mode: sim.scenario.mode,
    queryHours: queryMs / 3_600_000,
    episodes,
    stalls,
    falseAlarms,
    tolerated,
    alsoOpened,
    downtimeStalls,
    parseErrors,
    queries: sim.queries.map((q) => ({
      family: q.query.family,
      description: q.query.description,
      reports: q.batches.length,
      capped: q.query.params.capped === true,
      triggerMs: q.query.spec.triggerMs ?? 0,
      units: typeof q.query.params.units === 'number' ? q.query.params.units : null,
    })),
  };
}
