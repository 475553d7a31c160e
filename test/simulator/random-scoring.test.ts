import { describe, expect, it } from 'vitest';
import type { Incident, IncidentChange, IncidentKind } from '../../src/diagnosis/types.js';
import {
  alarmOpeningText,
  judgeTargets,
  percentDown,
  scoreRandom,
  summarize,
  wilsonInterval,
  type RandomQueryRun,
  type TimedChange,
} from '../../src/simulator/evaluation/index.js';
import { AFTERMATH_MS, drawScenario, simulateRandom, type LagLabel } from '../../src/simulator/random/index.js';

// The scorer on hand-made engine output (no engine inside): what counts as found, late, flapping, a false alarm.
const sim = simulateRandom(drawScenario(900_401, { family: 'capacity-drop', mode: 'dbr-17.1' }));
const q = sim.queries[0]!;
const label = q.labels.find((l): l is LagLabel => l.kind === 'lag')!;

function change(type: IncidentChange['type'], kind: IncidentKind, index: number, openedIndex = index): TimedChange {
  const at = q.batches[Math.min(index, q.batches.length - 1)]!.endMs;
  const opened = q.batches[openedIndex]!;
  const incident: Incident = {
    kind,
    severity: 'warning',
    openedAtBatchId: opened.truth.batchId,
    openedAt: new Date(opened.truth.startMs).toISOString(),
    resolvedAtBatchId: null,
    resolvedAt: null,
    summary: `${kind} at ${index}`,
    causes: [],
    advice: [],
  };
  return { index, atMs: at, change: { type, queryId: q.query.spec.id!, queryName: null, incident } };
}

const run = (changes: TimedChange[]): RandomQueryRun[] => [{ changes, staticFires: q.batches.map(() => false), parseErrors: [] }];

describe('scoring a random draw', () => {
  it('has a lag label with a recovery to score against', () => {
    expect(label).toBeDefined();
    expect(label.recoveryIndex).not.toBeNull();
  });

  it('finds an incident opened inside the deadline, with its delay, one incident, and its resolution delay', () => {
    const open = label.onsetIndex + 3;
    const s = scoreRandom(sim, run([change('opened', 'lag', open), change('resolved', 'lag', label.recoveryIndex! + 4, open)]));
    const [e] = s.episodes;
    expect(e).toMatchObject({ found: true, late: false, delayReports: 3, incidents: 1, resolutionDelayReports: 4, unresolved: false });
    expect(s.falseAlarms).toEqual([]);
  });

  it('counts a re-opening of the same incident once, and a new incident after resolving as flapping', () => {
    const open = label.onsetIndex + 1;
    const sameAgain = [change('opened', 'lag', open), change('resolved', 'lag', open + 5, open), change('opened', 'lag', open + 8, open)];
    expect(scoreRandom(sim, run(sameAgain)).episodes[0]!.incidents).toBe(1);
    const second = [change('opened', 'lag', open), change('resolved', 'lag', open + 5, open), change('opened', 'lag', open + 8)];
    expect(scoreRandom(sim, run(second)).episodes[0]!.incidents).toBe(2);
  });

  it('calls an opening after the deadline late, one too early a false alarm and the episode missed', () => {
    const late = scoreRandom(sim, run([change('opened', 'lag', label.deadlineIndex + 1)]));
    expect(late.episodes[0]).toMatchObject({ found: false, late: true });
    const early = scoreRandom(sim, run([change('opened', 'lag', label.earliestIndex - 1)]));
    expect(early.episodes[0]).toMatchObject({ found: false, late: false, incidents: 0 });
    expect(early.falseAlarms.map((a) => a.kind)).toEqual(['lag']);
  });

  it('notes a missed episode that began while a false alarm opened before it was still open', () => {
    const before = label.earliestIndex - 3;
    const stillOpen = scoreRandom(sim, run([change('opened', 'lag', before)]));
    expect(stillOpen.episodes[0]).toMatchObject({ incidents: 0, openAtOnset: true });
    const resolved = scoreRandom(sim, run([change('opened', 'lag', before), change('resolved', 'lag', before + 1, before)]));
    expect(resolved.episodes[0]).toMatchObject({ incidents: 0, openAtOnset: false });
    // Re-opened within its cool-down (an update after the resolution) before the onset: open again.
    const relapsed = scoreRandom(sim, run([change('opened', 'lag', before), change('resolved', 'lag', before + 1, before), change('updated', 'lag', before + 2, before)]));
    expect(relapsed.episodes[0]).toMatchObject({ openAtOnset: true });
    // Another kind open at the onset is not a lag alert.
    expect(scoreRandom(sim, run([change('opened', 'stalled', before)])).episodes[0]).toMatchObject({ openAtOnset: false });
    expect(judgeTargets([stillOpen, resolved])[3]!.detail).toBe(
      '2 with none (never opened; 1 of them while a lag false alarm opened before the onset was still open), 0 with two or more',
    );
  });

  it('keeps a false alarm\'s text at opening beside its latest text', () => {
    const at = label.earliestIndex - 1;
    const later = change('updated', 'lag', at + 2, at);
    later.change.incident.summary = 'lag, rewritten by an update';
    const [alarm] = scoreRandom(sim, run([change('opened', 'lag', at), later])).falseAlarms;
    expect(alarm).toMatchObject({ openedSummary: `lag at ${at}`, summary: 'lag, rewritten by an update' });
    expect(alarmOpeningText(alarm!)).toBe(`lag at ${at}`);
    // A file written before the opening text was recorded still reads.
    expect(alarmOpeningText({ ...alarm!, openedSummary: undefined })).toBe('lag, rewritten by an update');
  });

  it('tolerates another kind inside the episode, not after its aftermath', () => {
    const inside = scoreRandom(sim, run([change('opened', 'lag', label.onsetIndex), change('opened', 'stalled', label.onsetIndex + 2)]));
    expect(inside.falseAlarms).toEqual([]);
    expect(inside.alsoOpened).toEqual({ stalled: 1 });
    const afterIndex = q.batches.findIndex((b) => b.endMs > label.endMs + AFTERMATH_MS);
    if (afterIndex > 0) {
      const after = scoreRandom(sim, run([change('opened', 'lag', label.onsetIndex), change('opened', 'stalled', afterIndex)]));
      expect(after.falseAlarms.map((a) => a.kind)).toEqual(['stalled']);
    }
  });

  it('sums draws up and judges the targets', () => {
    const good = scoreRandom(sim, run([change('opened', 'lag', label.onsetIndex + 2), change('resolved', 'lag', label.recoveryIndex! + 1, label.onsetIndex + 2)]));
    const g = summarize('all', [good]);
    expect(g).toMatchObject({ draws: 1, episodes: 1, found: 1, falseAlarms: 0, notExactlyOne: 0 });
    expect(g.queryHours).toBeGreaterThan(0);
    const targets = judgeTargets([good]);
    expect(targets.map((t) => t.met)).toEqual([label.strict, label.strict, true, true, true]);
    expect(targets[3]!.detail).toBe('0 with none (never opened), 0 with two or more');
  });

  it('says whether the episodes without exactly one incident were missed or opened more than once', () => {
    const twice = scoreRandom(
      sim,
      run([
        change('opened', 'lag', label.onsetIndex + 2),
        change('resolved', 'lag', label.onsetIndex + 3, label.onsetIndex + 2),
        change('opened', 'lag', label.endIndex),
      ]),
    );
    const missed = scoreRandom(sim, run([]));
    const exactlyOne = judgeTargets([twice, missed, missed])[3]!;
    expect(exactlyOne).toMatchObject({ met: false, value: '0/3 episodes (mean 0.67)', detail: '2 with none (never opened), 1 with two or more' });
  });

  it('judges the recall in every reporting mode, the weakest named first', () => {
    const found = scoreRandom(sim, run([change('opened', 'lag', label.onsetIndex + 2)]));
    const missed = scoreRandom(sim, run([]));
    const otherMode = (score: typeof found) => ({ ...score, mode: 'kinesis' as const });
    const [, perMode] = judgeTargets([found, found, otherMode(found), otherMode(missed)]);
    expect(perMode).toMatchObject({ met: false, value: 'lowest: kinesis 50.0 % (1/2; 95 % interval 9.5–90.5 %)', detail: 'dbr-17.1 100.0 %' });
    expect(judgeTargets([found, otherMode(found)])[1]).toMatchObject({ met: true });
    expect(judgeTargets([])[1]).toMatchObject({ met: false, value: 'no such episodes' });
  });

  it('gives the recall a 95 % Wilson interval', () => {
    // Known values: 1 of 2 is 9.5–90.5 %; 99 of 100 is 94.6–99.8 %; none and all stay within 0–1.
    const round = ({ low, high }: { low: number; high: number }) => [Number((low * 100).toFixed(1)), Number((high * 100).toFixed(1))];
    expect(round(wilsonInterval(1, 2))).toEqual([9.5, 90.5]);
    expect(round(wilsonInterval(99, 100))).toEqual([94.6, 99.8]);
    expect(round(wilsonInterval(0, 50))).toEqual([0, 7.1]);
    expect(round(wilsonInterval(50, 50))).toEqual([92.9, 100]);
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
  });

  it('rounds a recall down, so one just under a target never reads as the target', () => {
    expect(percentDown(294 / 297)).toBe('98.9');
    expect(percentDown(0.99)).toBe('99.0');
    expect(percentDown(0.29)).toBe('29.0');
    expect(percentDown(1)).toBe('100.0');
    expect(percentDown(0)).toBe('0.0');
  });

  it('splits the recall on sustained overload by whether the reports can show the backlog', () => {
    const found = scoreRandom(sim, run([change('opened', 'lag', label.onsetIndex + 2)]));
    const missed = scoreRandom(sim, run([]));
    // The same episode, as if from a capped query printing no backlog figure at all.
    const blind = { ...missed, mode: 'no-metrics' as const, queries: missed.queries.map((query) => ({ ...query, capped: true })) };
    const [recall] = judgeTargets([found, blind]);
    expect(label.strict).toBe(true);
    expect(recall!.value).toBe('50.0 % (1/2; 95 % interval 9.5–90.5 %)');
    expect(recall!.detail).toBe(
      'where a backlog figure or the batch durations show it: 100.0 % (1/1); capped with no backlog figure at all (no-metrics): 0.0 % (0/1)',
    );
  });
});
