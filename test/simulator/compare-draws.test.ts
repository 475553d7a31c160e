/**
 * compareDraws pairs two scorings of the same random draws by seed: an unchanged engine moves
 * nothing, a later opening or a false alarm that came or went is named with its draw, and draws
 * that are not the same (other seeds, other labels) are refused rather than compared.
 */
import { describe, expect, it } from 'vitest';
import { DrawMismatchError, compareDraws, runRandomEngine, scoreRandom, type DrawScore } from '../../src/simulator/evaluation/index.js';
import { drawScenario, simulateRandom } from '../../src/simulator/random/index.js';

/** Two draws: a step overload (one episode) and a quiet one. */
function scored(): DrawScore[] {
  return [909_001, 909_002].map((seed) => {
    const sim = simulateRandom(drawScenario(seed, { family: seed === 909_001 ? 'step-overload' : 'utilization' }));
    return scoreRandom(sim, runRandomEngine(sim));
  });
}

const copy = (draws: DrawScore[]): DrawScore[] => JSON.parse(JSON.stringify(draws)) as DrawScore[];

describe('compareDraws', () => {
  it('finds nothing moved between two scorings by the same engine', () => {
    expect(compareDraws(scored(), scored())).toEqual([]);
  });

  it('names an episode opened later and false alarms that came and went', () => {
    const before = scored();
    expect(before[0]!.episodes).toHaveLength(1);
    const after = copy(before);
    const episode = after[0]!.episodes[0]!;
    episode.delayReports = (episode.delayReports ?? 0) + 9;
    episode.found = false;
    episode.late = true;
    const alarm = { query: 0, kind: 'lag' as const, index: 40, atMs: 0, summary: 'Falling behind: 25s of data waiting' };
    before[1]!.falseAlarms = [alarm];
    after[1]!.falseAlarms = [{ ...alarm, index: 41 }];

    const moves = compareDraws(before, after);
    expect(moves.map((m) => m.seed)).toEqual([909_001, 909_002]);
    expect(moves[0]!.episodes).toEqual([
      expect.objectContaining({ query: 0, strict: before[0]!.episodes[0]!.label.strict, before: expect.objectContaining({ found: true }), after: expect.objectContaining({ found: false, late: true }) }),
    ]);
    expect(moves[1]!.alarmsGone.map((a) => a.index)).toEqual([40]);
    expect(moves[1]!.alarmsNew.map((a) => a.index)).toEqual([41]);
  });

  it('refuses draws that are not the same', () => {
    const draws = scored();
    expect(() => compareDraws(draws, draws.slice(1))).toThrow(DrawMismatchError);
    expect(() => compareDraws(draws, [...draws].reverse())).toThrow(/draw 0 is seed 909001 .* seed 909002/);
    const relabelled = copy(draws);
    relabelled[0]!.episodes[0]!.label.onsetIndex += 1;
    expect(() => compareDraws(draws, relabelled)).toThrow(/other labels/);
    // The same seeds scored with another --mode are other draws too.
    const otherMode = copy(draws);
    otherMode[1]!.mode = otherMode[1]!.mode === 'kinesis' ? 'dbr-17.1' : 'kinesis';
    expect(() => compareDraws(draws, otherMode)).toThrow(expect.objectContaining({ code: 'streamdoctor_eval_draw_mismatch' }));
  });
});
