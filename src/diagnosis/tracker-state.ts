/**
 * The serialized state of a `QueryTracker`: what the worker stores in Redis per query between
 * detect jobs. JSON-safe and bounded (a fixed ring of features, a few incidents): ≤ 24 KB of UTF-8.
 * Text that comes from the query (its name, topics, sink and operator names, and the incident texts
 * that quote them) is cut where it enters the state (`boundStateText`), so the ring of features,
 * the part detection needs, is not what the bound sacrifices. `trackerStateProblem` is what
 * `QueryTracker.restore` checks before relying on a stored state.
 */
import { StreamDoctorError } from '../util/errors.js';
import { truncateText } from '../util/truncate-text.js';
import type { Disruption } from './aftermath.js';
import type { CapBound } from './cap-binding.js';
import type { QueryFacts } from './batch-features.js';
import type { SerializedFeatures } from './feature-ring.js';
import type { WatermarkWatch } from './detectors/detector.js';
import type { Incident, IncidentKind } from './types.js';

export const TRACKER_STATE_VERSION = 1;
export const TRACKER_STATE_MAX_BYTES = 24 * 1024;
/** Longest query name, Kafka topic, sink description or state operator name the state keeps. */
export const STATE_NAME_MAX_CHARS = 200;
/**
 * Longest incident text the state keeps (summary, cause evidence, advice): the engine writes up to
 * about 300 characters; more is names quoted at length.
 */
export const STATE_TEXT_MAX_CHARS = 2000;

export interface OpenIncidentState {
  incident: Incident;
  /** Detector memory while open (e.g. the level before the episode). */
  memo: Record<string, number>;
  /** Consecutive batches judged back to normal. */
  clearStreak: number;
  /** Batch end of the first of those clear batches, epoch ms (the hold period runs from it). */
  clearSinceMs?: number;
  /** Batch time its figures were last told (a change), epoch ms; absent in states saved before it was kept. */
  toldAtMs?: number;
  /** The headline figures told then (told-figures.ts). */
  told?: Record<string, number>;
}

/** What a recently resolved incident leaves behind so a relapse can re-open it. */
export interface CoolingIncidentState {
  resolvedAtMs: number;
  /** The tracker's batch count at the resolution; absent in states saved before it was kept. */
  resolvedAtBatch?: number;
  memo: Record<string, number>;
}

export interface TrackerState {
  v: typeof TRACKER_STATE_VERSION;
  id: string;
  name: string | null;
  ring: SerializedFeatures[];
  facts: QueryFacts | null;
  runId: string | null;
  /** End of the latest report of any kind (idle reports included), epoch ms. */
  lastSeenMs: number | null;
  batches: number;
  open: Partial<Record<IncidentKind, OpenIncidentState>>;
  /** Resolved incidents, oldest first, bounded. */
  resolved: Incident[];
  watermark?: WatermarkWatch;
  /** Input rows of the latest report of any kind. */
  lastReportRows?: number;
  /** Most rows any batch of the current run but its first read (absent in older states: taken from the ring). */
  runMaxRows?: number;
  /** Batches in a row that read data with Kafka's latest offsets at their end, up to 3 (query-tracker.ts). */
  planningZeros?: number;
  /** Incidents resolved within the relapse cool-down, by kind (their records are in `resolved`). */
  cooling?: Partial<Record<IncidentKind, CoolingIncidentState>>;
  /** The newest stall or restart after downtime while its catch-up may be under way. */
  disruption?: Disruption | null;
  /** A Kafka cap binding with no backlog figure, while it lasts (cap-binding.ts). */
  capBound?: CapBound | null;
}

export class TrackerStateError extends StreamDoctorError {
  constructor(message: string) {
    super('streamdoctor_invalid_tracker_state', message);
  }
}

/** UTF-8 length of `text` (what Redis stores), without encoding it. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 2; // a surrogate pair: 4 bytes for its 2 units
      i += 1;
    } else bytes += 2;
  }
  return bytes;
}

function boundIncidentText(incident: Incident): void {
  incident.summary = truncateText(incident.summary, STATE_TEXT_MAX_CHARS);
  for (const cause of incident.causes) cause.evidence = truncateText(cause.evidence, STATE_TEXT_MAX_CHARS);
  for (const advice of incident.advice) {
    advice.text = truncateText(advice.text, STATE_TEXT_MAX_CHARS);
    if (advice.setting !== undefined) advice.setting = truncateText(advice.setting, STATE_NAME_MAX_CHARS);
    if (advice.value !== undefined) advice.value = truncateText(advice.value, STATE_NAME_MAX_CHARS);
  }
}

/**
 * Cuts the text of a state in place (a copy the caller owns): names to `STATE_NAME_MAX_CHARS`,
 * incident texts to `STATE_TEXT_MAX_CHARS`. Ids are kept whole: the engine compares them (the
 * worker refuses ids longer than 128 characters where progress enters).
 */
export function boundStateText(state: TrackerState): void {
  if (state.name !== null) state.name = truncateText(state.name, STATE_NAME_MAX_CHARS);
  if (state.facts) {
    const facts = state.facts;
    facts.sink = truncateText(facts.sink, STATE_NAME_MAX_CHARS);
    facts.kafkaTopics = facts.kafkaTopics.map((topic) => truncateText(topic, STATE_NAME_MAX_CHARS));
    facts.stateOperators = facts.stateOperators.map((name) => truncateText(name, STATE_NAME_MAX_CHARS));
    facts.sourceKinds = facts.sourceKinds.map((kind) => truncateText(kind, STATE_NAME_MAX_CHARS));
  }
  for (const open of Object.values(state.open)) if (open) boundIncidentText(open.incident);
  for (const incident of state.resolved) boundIncidentText(incident);
}

// The validator: hand-written (no schema library in the core), each check saying what is wrong.
type Check = string | null;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const numberOrNull = (value: unknown): boolean => value === null || isNumber(value);
const optional = (value: unknown, test: (v: unknown) => boolean): boolean => value === undefined || test(value);
const isDate = (value: unknown): boolean => typeof value === 'string' && Number.isFinite(Date.parse(value));
const strings = (value: unknown): boolean => Array.isArray(value) && value.every((item) => typeof item === 'string');
const SEVERITIES: ReadonlySet<unknown> = new Set(['warning', 'critical']);
/** The kinds a tracker opens and resolves (`failed` and `source_unreadable` come from job runs and source health). */
export const TRACKER_INCIDENT_KINDS: ReadonlySet<IncidentKind> = new Set<IncidentKind>(['lag', 'state_growth', 'slow_repartition', 'stalled', 'data_loss_risk']);
const TRACKER_KINDS: ReadonlySet<string> = TRACKER_INCIDENT_KINDS;

/** Detector memory: numbers (a NaN was stored as null). */
function memoProblem(memo: unknown, where: string): Check {
  if (!isObject(memo)) return `${where} is not an object`;
  for (const key in memo) if (!numberOrNull(memo[key])) return `${where}.${key} is not a number`;
  return null;
}

function incidentProblem(incident: unknown, where: string, kind?: string): Check {
  if (!isObject(incident)) return `${where} is not an object`;
  if (typeof incident.kind !== 'string' || !TRACKER_KINDS.has(incident.kind)) return `${where}.kind is not a kind the tracker opens`;
  if (kind !== undefined && incident.kind !== kind) return `${where}.kind is not ${kind}`;
  if (!SEVERITIES.has(incident.severity)) return `${where}.severity is not warning or critical`;
  // The incident's id is its kind and openedAt's epoch ms: a string that is no date would name a phantom record.
  if (!isDate(incident.openedAt)) return `${where}.openedAt is not a date`;
  if (!(incident.resolvedAt === null || isDate(incident.resolvedAt))) return `${where}.resolvedAt is not a date or null`;
  if (!optional(incident.openedAtBatchId, numberOrNull) || !optional(incident.resolvedAtBatchId, numberOrNull)) return `${where} has a batch id that is not a number`;
  if (typeof incident.summary !== 'string') return `${where}.summary is not a string`;
  if (!Array.isArray(incident.causes)) return `${where}.causes is not an array`;
  for (const cause of incident.causes) {
    if (!isObject(cause) || typeof cause.code !== 'string' || !isNumber(cause.confidence) || typeof cause.evidence !== 'string') return `${where}.causes holds a malformed cause`;
  }
  if (!Array.isArray(incident.advice)) return `${where}.advice is not an array`;
  for (const advice of incident.advice) {
    if (!isObject(advice) || typeof advice.text !== 'string') return `${where}.advice holds a malformed advice`;
    if (!optional(advice.setting, (v) => typeof v === 'string') || !optional(advice.value, (v) => typeof v === 'string')) return `${where}.advice holds a malformed advice`;
  }
  if (!optional(incident.metrics, isObject)) return `${where}.metrics is not an object`;
  if (!optional(incident.relapses, isNumber)) return `${where}.relapses is not a number`;
  if (!optional(incident.aftermath, isObject)) return `${where}.aftermath is not an object`;
  if (!optional(incident.figuresAt, (v) => typeof v === 'string')) return `${where}.figuresAt is not a string`;
  return null;
}

function factsProblem(facts: unknown): Check {
  if (facts === null || facts === undefined) return null;
  if (!isObject(facts)) return 'facts is not an object';
  if (!strings(facts.sourceKinds) || !strings(facts.kafkaTopics) || !strings(facts.stateOperators)) return 'facts has a list that is not of strings';
  if (!isNumber(facts.kafkaPartitions)) return 'facts.kafkaPartitions is not a number';
  if (typeof facts.sink !== 'string') return 'facts.sink is not a string';
  if (!optional(facts.stateProvider, (v) => v === null || typeof v === 'string')) return 'facts.stateProvider is not a string';
  if (!optional(facts.shufflePartitions, numberOrNull) || !optional(facts.eventTimeSpreadMs, numberOrNull)) return 'facts has a number that is not one';
  return null;
}

function disruptionProblem(value: unknown): Check {
  if (value === null || value === undefined) return null;
  if (!isObject(value)) return 'disruption is not an object';
  if (value.what !== 'stall' && value.what !== 'restart') return 'disruption.what is not stall or restart';
  if (![value.batchT, value.startMs, value.durationMs, value.catchUpFromMs].every(isNumber)) return 'disruption has a time that is not a number';
  const before = value.before;
  if (before !== undefined && !(isObject(before) && [before.arrival, before.arrivalLow, before.readMax, before.plannedMs].every(isNumber))) {
    return 'disruption.before is malformed';
  }
  const counts = value.countsBefore;
  const numbers = (list: unknown) => Array.isArray(list) && list.every(isNumber);
  if (counts !== undefined && !(isObject(counts) && numbers(counts.files) && numbers(counts.bytes) && optional(counts.filesPerSec, isNumber))) {
    return 'disruption.countsBefore is malformed';
  }
  return null;
}

function capBoundProblem(value: unknown): Check {
  if (value === null || value === undefined) return null;
  if (!isObject(value)) return 'capBound is not an object';
  if (![value.cap, value.sinceMs, value.pace, value.dips].every(isNumber) || typeof value.fromSteady !== 'boolean') return 'capBound is malformed';
  if (!numberOrNull(value.readBefore) || !numberOrNull(value.batchesToOpen)) return 'capBound is malformed';
  if (![value.arrivalBefore, value.slowSinceMs].every((v) => optional(v, numberOrNull)) || ![value.low, value.high].every((v) => optional(v, isNumber))) {
    return 'capBound is malformed';
  }
  return null;
}

/**
 * What is wrong with a stored state, or null when `QueryTracker.restore` can rely on it: every
 * field it reads has the type the engine assumes (fields added later may be absent).
 */
export function trackerStateProblem(state: unknown): Check {
  if (!isObject(state) || typeof state.id !== 'string') return 'is not an object with a query "id"';
  if (state.v !== TRACKER_STATE_VERSION) return `version ${String(state.v)} is not ${TRACKER_STATE_VERSION}`;
  if (!(state.name === null || state.name === undefined || typeof state.name === 'string')) return 'name is not a string';
  if (!Array.isArray(state.ring) || !state.ring.every((row) => Array.isArray(row))) return 'ring is not a list of feature rows';
  const facts = factsProblem(state.facts);
  if (facts) return facts;
  if (!optional(state.runId, (v) => v === null || typeof v === 'string')) return 'runId is not a string';
  if (!optional(state.lastSeenMs, numberOrNull)) return 'lastSeenMs is not a number';
  for (const key of ['batches', 'lastReportRows', 'runMaxRows', 'planningZeros'] as const) {
    if (!optional(state[key], isNumber)) return `${key} is not a number`;
  }
  if (!isObject(state.open)) return 'open is not an object';
  for (const [kind, open] of Object.entries(state.open)) {
    if (!isObject(open)) return `open.${kind} is not an object`;
    const problem = incidentProblem(open.incident, `open.${kind}.incident`, kind) ?? memoProblem(open.memo, `open.${kind}.memo`);
    if (problem) return problem;
    if (!isNumber(open.clearStreak)) return `open.${kind}.clearStreak is not a number`;
    if (!optional(open.clearSinceMs, isNumber)) return `open.${kind}.clearSinceMs is not a number`;
    if (!optional(open.toldAtMs, isNumber)) return `open.${kind}.toldAtMs is not a number`;
    if (open.told !== undefined) {
      const told = memoProblem(open.told, `open.${kind}.told`);
      if (told) return told;
    }
  }
  if (!Array.isArray(state.resolved)) return 'resolved is not an array';
  for (const [i, incident] of state.resolved.entries()) {
    const problem = incidentProblem(incident, `resolved[${i}]`);
    if (problem) return problem;
  }
  const watermark = state.watermark;
  if (watermark !== undefined && !(isObject(watermark) && [watermark.startMs, watermark.nowMs, watermark.delayMs].every((v) => optional(v, numberOrNull)))) {
    return 'watermark is malformed';
  }
  if (state.cooling !== undefined) {
    if (!isObject(state.cooling)) return 'cooling is not an object';
    for (const [kind, cooling] of Object.entries(state.cooling)) {
      if (!TRACKER_KINDS.has(kind) || !isObject(cooling) || !isNumber(cooling.resolvedAtMs) || !optional(cooling.resolvedAtBatch, isNumber)) return `cooling.${kind} is malformed`;
      const problem = memoProblem(cooling.memo, `cooling.${kind}.memo`);
      if (problem) return problem;
    }
  }
  return disruptionProblem(state.disruption) ?? capBoundProblem(state.capBound);
}
