/**
 * How long an incident has been open, or lasted. A relapse within the cool-down re-opens the same
 * incident (same id, same message) and records when (`incident.relapsedAt`): its age counts from
 * then, or the time it spent resolved would read as open; its first opening is said beside it.
 */
import { formatSpan, toMs } from '../format.js';
import { slackDate } from '../mrkdwn.js';
import type { IncidentRecordView } from './types.js';

export interface Episode {
  /** The incident's first opening (its id's time). */
  firstMs: number;
  /** When its latest episode began: the re-opening, else the first opening. */
  sinceMs: number;
  reopened: boolean;
}

/**
 * The incident's latest episode. `untilMs`: when it resolved, for a resolved one; a re-opening dated
 * after it (or not after the first opening) is not believed.
 */
export function episodeOf(record: Pick<IncidentRecordView, 'openedAt' | 'incident'>, untilMs = Infinity): Episode {
  const firstMs = toMs(record.openedAt ?? record.incident.openedAt);
  const relapsedMs = toMs(record.incident.relapsedAt ?? null);
  // NaN compares false: no re-opening when either time is unknown.
  const reopened = relapsedMs > firstMs && !(relapsedMs > untilMs);
  return { firstMs, sinceMs: reopened ? relapsedMs : firstMs, reopened };
}

/** `open for 47m 30s`, or for a re-opened incident `re-opened 10m ago, first opened <date>`. */
export function openAge(record: Pick<IncidentRecordView, 'openedAt' | 'incident'>, nowMs: number): string {
  const { firstMs, sinceMs, reopened } = episodeOf(record);
  if (!reopened) return `open for ${formatSpan(firstMs, nowMs)}`;
  return `re-opened ${formatSpan(sinceMs, nowMs)} ago, first opened ${slackDate(firstMs)}`;
}
