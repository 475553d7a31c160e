/** The traces recorded from real local Spark through the real listener, scored against their labels. */
import { describe, expect, it } from 'vitest';
import { scoreRealTraces } from '../../bench/eval-real.js';

describe('real Spark traces', () => {
  const scores = scoreRealTraces();

  it('has the recorded traces', () => {
    expect(scores.map((s) => s.name)).toEqual(
      expect.arrayContaining(['healthy', 'overloaded', 'mild-overload', 'near-capacity', 'capacity-dip', 'restart-catch-up', 'dedupe-no-watermark', 'watermark-aggregation', 'files-behind-cap', 'sink-blocked', 'interleaved']),
    );
  });

  for (const score of scores) {
    it(`${score.name}: every labelled incident found in its window (and resolved in time where labelled), nothing else opened`, () => {
      expect(score.parseErrors).toBe(0);
      for (const e of score.expected) {
        expect(e.found, `${e.kind} from batch ${e.onsetBatchId}`).not.toBeNull();
        if (e.resolveByBatchId !== undefined) {
          expect(e.resolvedAfterBatchId, `${e.kind} resolved by batch ${e.resolveByBatchId}`).not.toBeNull();
          expect(e.resolvedAfterBatchId!).toBeLessThanOrEqual(e.resolveByBatchId);
        }
      }
      expect(score.falseAlarms.map((o) => `${o.kind} after batch ${o.afterBatchId}: ${o.summary}`)).toEqual([]);
    });
  }
});
