/**
 * Two scorings of the same random draws, paired by seed: which lag episodes were found sooner,
 * later or not at all, and which false alarms came or went (stalls and resolutions are not
 * compared). A detection change is judged on what moved, not only on totals that noise between
 * seed ranges can hide. Pure: `bench/eval-diff.ts` prints it.
 */

import { StreamDoctorError } from '../../util/errors.js';
import type { Alarm, DrawScore, EpisodeScore } from './score-random.js';

/** What one scoring says of an episode. */
export interface EpisodeOutcome {
  found: boolean;
  late: boolean;
  /** Reports from the onset to the first opening; null when never opened. */
  delayReports: number | null;
  incidents: number;
}

export interface EpisodeMove {
  query: number;
  /** The label's `what` (input step, restart, …). */
  what: string;
  /** A sustained overload (≥ 10 %): held to the 8-batch deadline. */
  strict: boolean;
  before: EpisodeOutcome;
  after: EpisodeOutcome;
}

/** A draw where anything moved. */
export interface DrawMove {
  seed: number;
  family: string;
  mode: string;
  episodes: EpisodeMove[];
  /** False alarms the first scoring had and the second has not, and the other way round. */
  alarmsGone: Alarm[];
  alarmsNew: Alarm[];
}

/** The two sets of draws are not the same seeds, families, modes and labels in the same order. */
export class DrawMismatchError extends StreamDoctorError {
  constructor(message: string) {
    super('streamdoctor_eval_draw_mismatch', message, {
      fix: 'score both builds with the same --random, --seed-base, --only and --mode',
    });
  }
}

function outcome(e: EpisodeScore): EpisodeOutcome {
  return { found: e.found, late: e.late, delayReports: e.delayReports, incidents: e.incidents };
}

function sameOutcome(a: EpisodeOutcome, b: EpisodeOutcome): boolean {
  return a.found === b.found && a.late === b.late && a.delayReports === b.delayReports && a.incidents === b.incidents;
}

/** An alarm's identity across scorings: its query, kind and the report that opened it. */
const alarmKey = (a: Alarm): string => `${a.query}:${a.kind}:${a.index}`;

/**
 * The draws whose episodes or false alarms differ between `before` and `after`, in seed order.
 * Throws DrawMismatchError unless both hold the same seeds, families, modes and episodes (the same
 * labels: the same simulator and draw options), so that a change of the engine is all that differs.
 */
export function compareDraws(before: readonly DrawScore[], after: readonly DrawScore[]): DrawMove[] {
  if (before.length !== after.length) {
    throw new DrawMismatchError(`the scorings hold ${before.length} and ${after.length} draws`);
  }
  const moves: DrawMove[] = [];
  before.forEach((a, i) => {
    const b = after[i]!;
    if (a.seed !== b.seed || a.family !== b.family || a.mode !== b.mode || a.episodes.length !== b.episodes.length) {
      throw new DrawMismatchError(
        `draw ${i} is seed ${a.seed} (${a.family}, ${a.mode}, ${a.episodes.length} episodes) in one and seed ${b.seed} (${b.family}, ${b.mode}, ${b.episodes.length}) in the other`,
      );
    }
    const episodes: EpisodeMove[] = [];
    a.episodes.forEach((ea, k) => {
      const eb = b.episodes[k]!;
      if (ea.query !== eb.query || ea.label.onsetIndex !== eb.label.onsetIndex) {
        throw new DrawMismatchError(`seed ${a.seed}: episode ${k} has other labels in the two scorings (other --only or --mode, or another simulator)`);
      }
      const [oa, ob] = [outcome(ea), outcome(eb)];
      if (!sameOutcome(oa, ob)) episodes.push({ query: ea.query, what: ea.label.what, strict: ea.label.strict, before: oa, after: ob });
    });
    const keysAfter = new Set(b.falseAlarms.map(alarmKey));
    const keysBefore = new Set(a.falseAlarms.map(alarmKey));
    const alarmsGone = a.falseAlarms.filter((x) => !keysAfter.has(alarmKey(x)));
    const alarmsNew = b.falseAlarms.filter((x) => !keysBefore.has(alarmKey(x)));
    if (episodes.length > 0 || alarmsGone.length > 0 || alarmsNew.length > 0) {
      moves.push({ seed: a.seed, family: a.family, mode: a.mode, episodes, alarmsGone, alarmsNew });
    }
  });
  return moves;
}
