/**
 * What every detector receives and returns. A detector is a pure function of the query's recent
 * batches; the tracker turns its verdicts into an incident lifecycle with hysteresis.
 */
import type { CapBound } from '../cap-binding.js';
import type { Disruption } from '../aftermath.js';
import type { BatchFeatures, QueryFacts } from '../batch-features.js';
import type { ResolvedEngineOptions } from '../engine-options.js';
import type { Analysis } from '../query-analysis.js';
import type { Advice, AftermathInfo, Cause, IncidentMetrics, Severity } from '../types.js';

export interface WatermarkWatch {
  /** Watermark when state rows were last removed (or first seen), epoch ms. */
  startMs: number | null;
  /** Latest watermark, epoch ms. */
  nowMs: number | null;
  /** Latest eventTime.max − watermark, ms: how long keys are kept. */
  delayMs: number | null;
}

export interface DetectorContext {
  /** The ring, oldest first; the newest batch is last. */
  features: readonly BatchFeatures[];
  latest: BatchFeatures;
  facts: QueryFacts;
  analysis: Analysis;
  options: ResolvedEngineOptions;
  /** Detector memory kept while an incident of its kind is open (e.g. the level at onset). */
  memo: Record<string, number> | null;
  /** Whether to (re)build causes and advice now; when false a firing detector may leave them empty. */
  explain: boolean;
  /** Kinds of the incidents open before this judgement. */
  openKinds: string[];
  /** The time of judgement, epoch ms (the latest batch end when fed progress). */
  nowMs: number;
  /** End of the latest report of any kind (idle reports included), epoch ms. */
  lastSeenMs: number;
  /**
   * Start of the query's current run when it is known from outside the progress (the job's active
   * run) and later than the latest report: the query restarted and has not reported yet. Null otherwise.
   */
  runStartedAtMs: number | null;
  /** Input rows of the latest report of any kind (0 after a no-data report: the query is idle). */
  lastReportRows: number;
  /** Most rows any batch of the current run read, past the ring too, its first batch left out (admission-cap.ts). */
  runMaxRows: number;
  /** Batches this tracker has seen (beyond the ring). */
  batches: number;
  /** Watermark progress: how far it advanced since state was last removed, and its delay. */
  watermark: WatermarkWatch;
  /** `openedAt` of the newest stalled incident that has resolved (the aftermath links it); null when none. */
  lastStallOpenedAt: string | null;
  /** The stall or restart whose catch-up may still be under way (kept past the ring); null when none. */
  disruption: Disruption | null;
  /**
   * When the last lag incident resolved (a relapse would re-open it), epoch ms; null when none has.
   * The batches before it are that episode's, not the query's normal range.
   */
  lagResolvedAtMs: number | null;
  /** A Kafka cap binding with no backlog figure, followed past the ring (cap-binding.ts); null when none. */
  capBound: CapBound | null;
}

/**
 * - `fire`: evidence to open (or keep open) an incident;
 * - `hold`: neither open nor back to normal (hysteresis band);
 * - `clear`: back to normal; the tracker resolves after enough consecutive clears.
 */
export type Verdict = 'fire' | 'hold' | 'clear';

export interface Finding {
  verdict: Verdict;
  severity: Severity;
  summary: string;
  metrics: IncidentMetrics;
  causes: Cause[];
  advice: Advice[];
  /** Values to remember while open (merged into the memo). */
  memo?: Record<string, number>;
  /** The disruption this finding is the aftermath of (lag after a stall or a restart). */
  aftermath?: AftermathInfo;
  /**
   * Set instead of `summary` and `metrics` by a detector whose open incident still fires: builds
   * them as of this batch when the incident is read (see QueryTracker), not on every batch.
   */
  describe?: () => { summary: string; metrics: IncidentMetrics };
}

/** No judgement this batch (a throttled detector): keeps the incident as it is. */
export const HOLD: Finding = {
  verdict: 'hold',
  severity: 'warning',
  summary: '',
  metrics: {},
  causes: [],
  advice: [],
};

export const CLEAR: Finding = {
  verdict: 'clear',
  severity: 'warning',
  summary: '',
  metrics: {},
  causes: [],
  advice: [],
};
