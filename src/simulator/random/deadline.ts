/**
 * The one deadline rule of the randomized corpus, stated once: how late a lag incident may open
 * after the onset of an episode, and how long a catch-up may take before it counts as lag.
 */

/** Reports after the onset within which a sustained overload must be found (the "within 8 batches"). */
export const DEADLINE_REPORTS = 8;
/** An overload of at least this much (true arrival ÷ sustainable rate − 1) is "sustained overload". */
export const SUSTAINED_OVERLOAD = 0.1;
/** The static rule's threshold (Databricks job health `STREAMING_BACKLOG_SECONDS > 600`), seconds. */
export const STATIC_RULE_SEC = 600;
/** Backlog left by a restart, downtime, stall or burst that drains within this is quiet; otherwise it is lag. */
export const CATCH_UP_BUDGET_MS = 30 * 60_000;
/** Openings this long after an episode ends still count as that episode's incidents (flapping). */
export const AFTERMATH_MS = 30 * 60_000;

/**
 * Last report index (inclusive, 0-based within the query) at which a lag episode counts as found
 * in time:
 * - overload ≥ SUSTAINED_OVERLOAD: `onset + DEADLINE_REPORTS`;
 * - a milder overload (or a catch-up that will not finish in budget): the later of
 *   `onset + DEADLINE_REPORTS` and the first report whose true time behind exceeds
 *   STATIC_RULE_SEC, so it is never stricter than the static rule; when the time behind never gets
 *   there, the episode's last report.
 * `timeBehindSec` is the truth per report; `overload` the episode's true overload (see labels.ts).
 */
export function lagDeadlineIndex(
  timeBehindSec: readonly number[],
  onsetIndex: number,
  overload: number,
  episodeLastIndex: number,
): number {
  const byReports = onsetIndex + DEADLINE_REPORTS;
  if (overload >= SUSTAINED_OVERLOAD) return byReports;
  let beyondStatic = -1;
  for (let i = onsetIndex; i < timeBehindSec.length; i++) {
    if (timeBehindSec[i]! > STATIC_RULE_SEC) {
      beyondStatic = i;
      break;
    }
  }
  return Math.max(byReports, beyondStatic >= 0 ? beyondStatic : episodeLastIndex);
}
