/**
 * How long a restart's catch-up takes, judged from the batches since: a capped query drains at what
 * the cap admits per trigger interval (the first intervals after a restart are short, on the
 * trigger's clock, and read faster), and only down to the backlog it always has (read after its
 * batches, some data is always behind). Judged on those, a slow catch-up of a long-trigger query
 * opens as one; before, the fast first intervals and a drain to 0 made it look within the budget,
 * and once the backlog fell under two triggers it was not judged at all. Before the cap shows in a
 * run of equal reads, the rate the catch-up reads is taken from its second batch on, each over its
 * whole trigger interval (a batch that takes half the trigger read what arrived over all of it).
 */
import { describe, expect, it } from 'vitest';
import { constantRate, type StreamSpec } from '../../src/simulator/index.js';
import { runRandomEngine } from '../../src/simulator/evaluation/run-random.js';
import { drawScenario, simulateRandom } from '../../src/simulator/random/index.js';
import { MIN, opened, runStream } from './run-stream.js';

/** 4 min trigger; the cap of 180,000 offsets admits 750 rows/s, read in about 2.5 min. */
function spec(arrival: number, downtimeMs: number): StreamSpec {
  return {
    name: 'inventory_cdc',
    arrival: constantRate(arrival),
    arrivalNoise: 0.05,
    processing: { rowsPerSecPerCore: 600, cores: 2, overheadMs: 600 },
    triggerMs: 4 * MIN,
    source: { kind: 'kafka', partitions: 9, maxOffsetsPerTrigger: 180_000, latestOffsetAsEnd: true },
    platform: 'dbr-17.1',
    events: [{ type: 'restart', atBatch: 40, downtimeMs }],
  };
}

describe('a capped catch-up after a restart', () => {
  it('opens within 8 batches when it drains at the cap too slowly to finish within the budget', () => {
    // 650 rows/s (87 % of the cap) and 10 min down: about 390,000 offsets, drained at 100 rows/s
    // spare in about 65 minutes.
    for (let seed = 1; seed <= 6; seed += 1) {
      const run = runStream(spec(650, 10 * MIN), 90, {}, seed);
      const lag = opened(run, 'lag');
      expect(lag, `seed ${seed}`).toHaveLength(1);
      expect(lag[0]!.index, `seed ${seed}`).toBeGreaterThan(40);
      expect(lag[0]!.index, `seed ${seed}`).toBeLessThanOrEqual(40 + 8);
      expect(lag[0]!.incident.summary).toMatch(/^Catching up after a restart \(down for 1[0-2]m( \d+s)?\): .* of data waiting, about .* to drain at the recent processing rate \(the batches since read about 750 rows\/s; the query processes 1\.\d+K rows\/s\): past the 30m catch-up budget/);
    }
  });

  it('opens at the second batch after the restart, the drain read over whole trigger intervals', () => {
    // 700 rows/s (93 % of the cap) and 8 min down: about 400,000 offsets, drained at 50 rows/s
    // spare in over 2 hours. The batches take about 60 % of the trigger: read over their own
    // durations (and the restart's short first interval), the cap seemed to admit far more than
    // it does, and the drain seemed to fit the budget until a run of equal reads showed the cap.
    for (let seed = 1; seed <= 6; seed += 1) {
      const run = runStream(spec(700, 8 * MIN), 90, {}, seed);
      const lag = opened(run, 'lag');
      expect(lag.map((c) => c.index), `seed ${seed}`).toEqual([41]);
      // Down 8 minutes, plus the rest of the last trigger interval before it.
      const { summary, advice } = lag[0]!.incident;
      expect(summary).toMatch(/^Catching up after a restart \(down for 9m( \d+s)?\): .* \(the batches since read about 750 rows\/s; the query processes 1\.\d+K rows\/s\): past the 30m catch-up budget/);
      // The equal reads since the restart are a cap already set: no advice to set one, but to raise
      // it for the catch-up (the query processes twice what the cap admits), with the drain it buys.
      expect(advice.some((a) => a.text.startsWith('Cap catch-up batches'))).toBe(false);
      expect(advice[0]!.text, advice[0]!.text).toMatch(/^Raise maxOffsetsPerTrigger to \d+ for the catch-up \(what the query processes in [\dms ]+\): the batches read about 750 rows\/s, less than the 1\.\d+K rows\/s it can process, so the backlog would drain in about [\dhms ]+ instead of [\dhms ]+\./);
    }
  });

  it('stays quiet when the same query drains within the budget', () => {
    // 450 rows/s (60 % of the cap) and 10 min down: 270,000 offsets, drained at 300 rows/s spare in
    // about 15 minutes.
    for (let seed = 1; seed <= 6; seed += 1) {
      const run = runStream(spec(450, 10 * MIN), 90, {}, seed);
      expect({ seed, lag: opened(run, 'lag').map((c) => c.incident.summary) }).toEqual({ seed, lag: [] });
    }
  });
});

describe('a capped file source catching up after a restart', () => {
  // One file of 10,000 rows a batch (maxFilesPerTrigger 1), back to back, 3.5 s each: 2.5 min down
  // leaves about 24 files, drained at about half a file a batch (some 3 minutes). Files land whole,
  // so over the catch-up's first 3 batches the count often read flat, which said "not draining".
  function fileCatchUp(arrival: number, downtimeMs: number): StreamSpec {
    return {
      name: 'events_bronze',
      arrival: constantRate(arrival),
      arrivalNoise: 0.07,
      processing: { rowsPerSecPerCore: 2_950, cores: 2, overheadMs: 1_600 },
      triggerMs: 0,
      source: { kind: 'delta', rowsPerFile: 10_000, maxFilesPerTrigger: 1 },
      platform: 'dbr-17.1',
      events: [{ type: 'restart', atBatch: 100, downtimeMs }],
    };
  }

  it('stays quiet while a few files drain slowly within the budget', () => {
    const openings: string[] = [];
    for (let seed = 1; seed <= 12; seed += 1) {
      const run = runStream(fileCatchUp(1_600, 2.5 * MIN), 400, {}, seed);
      for (const c of opened(run, 'lag')) openings.push(`seed ${seed} at #${c.index}: ${c.incident.summary}`);
    }
    expect(openings).toEqual([]);
  });

  it('opens within 8 batches when the files barely drain', () => {
    // 2,700 rows/s, about 95 % of what one file a batch admits: the backlog of 5 min down needs
    // hours. Its count holds flat for 5 batches before that reads as not draining.
    for (let seed = 1; seed <= 6; seed += 1) {
      const run = runStream(fileCatchUp(2_700, 5 * MIN), 160, {}, seed);
      const lag = opened(run, 'lag');
      expect(lag.map((c) => c.index), `seed ${seed}`).toHaveLength(1);
      expect(lag[0]!.index, `seed ${seed}`).toBeGreaterThan(100);
      expect(lag[0]!.index, `seed ${seed}`).toBeLessThanOrEqual(100 + 8);
      expect(lag[0]!.incident.summary).toMatch(/^Catching up after a restart \(down for 5m( \d+s)?\): \d+ files waiting/);
    }
  });
});

describe('what to do about a slow uncapped catch-up', () => {
  it('gives the throughput that drains it within the budget, once, with the figures it comes from', () => {
    // A restart at 88 % load: the query gains little on the backlog, so it drains in hours.
    const [run] = runRandomEngine(simulateRandom(drawScenario(700_000, { family: 'slow-catch-up', mode: 'dbr-17.1' })));
    const open = run!.changes.find((c) => c.change.type === 'opened' && c.change.incident.kind === 'lag')!.change.incident;
    expect(open.summary).toMatch(/^Catching up after a restart \(down for [\dms ]+\): .* to drain at the recent processing rate \([\d.K]+ rows\/s processed against [\d.K]+ rows\/s arriving\): past the 30m catch-up budget \([\dhms ]+ in all\)$/);
    const first = open.advice[0]!;
    expect(first.text).toMatch(/^To drain within 30m instead of about [\dhms ]+, give the query about 1\.\d+× its current throughput: more or larger workers\. It processes [\d.K]+ rows\/s while [\d.K]+ rows\/s arrive, so only [\d.K]+ rows\/s are left over to drain the backlog\.$/);
    expect(first.throughputFactor).toBeGreaterThan(1.05);
    // One worker figure, not the steady-state one beside it.
    expect(open.advice.filter((a) => a.throughputFactor !== undefined)).toHaveLength(1);
    expect(open.advice.some((a) => /twice the spare/.test(a.text))).toBe(false);
  });
});
