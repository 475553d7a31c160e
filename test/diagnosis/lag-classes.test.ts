/**
 * The six ways lag detection failed on progress it was not tuned on, each rebuilt from a generated
 * stream (the simulator, printed exactly as Spark does) rather than copied from any log:
 * 1. uncapped Kafka whose backlog figures read 0, and latest = end offsets with the backlog only in
 *    the metrics; 2. reports with no source metrics and no latestOffset; 3. a slow creep with noisy
 *    input; 4. capacity lost for a while, then back; 5. several queries interleaved in one log;
 *    6. the aftermath of a stall.
 */
import { describe, expect, it } from 'vitest';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { formatDuration } from '../../src/util/duration.js';
import {
  DEFAULT_START_MS,
  StreamSimulator,
  constantRate,
  steppedRate,
  type SimulatedBatch,
  type StreamSpec,
} from '../../src/simulator/index.js';

const START = DEFAULT_START_MS;
const MIN = 60_000;
const cluster = { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 600 }; // 20,000 rows/s

interface Run {
  batches: SimulatedBatch[];
  changes: (IncidentChange & { index: number })[];
  tracker: QueryTracker;
}

/** Feeds a simulated stream through parser and tracker, ticking every minute through silences. */
function run(spec: StreamSpec, reports: number, options = {}, seed = 3): Run {
  const sim = new StreamSimulator(spec, { startMs: START, seed });
  const tracker = QueryTracker.create('q', spec.name ?? null, options);
  const batches: SimulatedBatch[] = [];
  const changes: Run['changes'] = [];
  let lastEnd = START;
  for (let index = 0; index < reports; index += 1) {
    const batch = sim.next();
    batches.push(batch);
    for (let at = lastEnd + MIN; at < batch.endMs; at += MIN) {
      for (const change of tracker.tick(at)) changes.push({ ...change, index });
    }
    const parsed = parseProgress(JSON.parse(batch.json));
    if (!parsed.ok) throw new Error(parsed.error);
    for (const change of [...tracker.observe(parsed.progress), ...tracker.tick(batch.endMs)]) changes.push({ ...change, index });
    lastEnd = batch.endMs;
  }
  return { batches, changes, tracker };
}

const openedLag = (r: Run) => r.changes.filter((c) => c.type === 'opened' && c.incident.kind === 'lag');

/** First report at or after `changeMs` whose true time behind exceeds everything before it. */
function onsetIndex(batches: SimulatedBatch[], changeMs: number): number {
  const change = batches.findIndex((b) => b.truth.startMs >= changeMs);
  const healthy = Math.max(0, ...batches.slice(0, change).map((b) => b.truth.timeBehindSec));
  return batches.findIndex((b, i) => i >= change && b.truth.timeBehindSec > healthy);
}

describe('lag on progress the engine was not tuned on', () => {
  it('1a. uncapped Kafka reading 0 behind: opens within 8 batches and says time behind is the growing batch duration', () => {
    const r = run(
      {
        name: 'clicks',
        arrival: steppedRate(12_000, [{ atMs: START + 30 * MIN, rowsPerSec: 22_400 }]),
        processing: cluster,
        triggerMs: 10_000,
        source: { kind: 'kafka', partitions: 16 },
        platform: 'spark-3.5',
      },
      215,
    );
    const onset = onsetIndex(r.batches, START + 30 * MIN);
    const lag = openedLag(r);
    expect(lag).toHaveLength(1);
    expect(lag[0]!.index - onset).toBeLessThanOrEqual(8);
    expect(lag[0]!.incident.summary).toMatch(/^Falling behind: the source's backlog reads 0 because each batch takes everything that has arrived, so time behind ≈ the last batch's duration, [\dms ]+ \(up from about [\dms ]+\) against a 10s trigger, growing \d+% per batch$/);
    expect(lag[0]!.incident.summary).toMatch(/backlog reads 0/);
    // "0 offsets" beside minutes behind reads as a contradiction: the backlog is inside the batch.
    expect(lag[0]!.incident.metrics?.backlog).toBeUndefined();
    // The load factor is said with what it means.
    expect(lag[0]!.incident.causes[0]!.evidence).toMatch(/load factor \d\.\d\d \(arrivals ÷ what it processes; over 1 falls behind\)/);
  });

  it('1a. when the overload ends, the open incident says the batches are shrinking and draining', () => {
    const spec: StreamSpec = {
      name: 'clicks',
      arrival: steppedRate(12_000, [
        { atMs: START + 30 * MIN, rowsPerSec: 26_000 },
        { atMs: START + 45 * MIN, rowsPerSec: 6_000 },
      ]),
      processing: cluster,
      triggerMs: 10_000,
      source: { kind: 'kafka', partitions: 16 },
      platform: 'spark-3.5',
    };
    const whole = run(spec, 260);
    expect(openedLag(whole)).toHaveLength(1);
    // Replayed up to the third batch in a row shorter than the one before, once the input has dropped.
    const d = (i: number) => whole.batches[i]!.endMs - whole.batches[i]!.truth.startMs;
    const draining = whole.batches.findIndex((b, i) => b.truth.startMs >= START + 45 * MIN && i >= 3 && d(i) < d(i - 1) && d(i - 1) < d(i - 2) && d(i - 2) < d(i - 3));
    expect(draining).toBeGreaterThan(0);
    const open = run(spec, draining + 1).tracker.report().incidents.find((i) => i.kind === 'lag' && i.resolvedAt === null);
    expect(open?.summary).toMatch(/^Draining: .*so time behind ≈ the last batch's duration, [\dms ]+ \(up from about [\dms ]+\)( against a [\dms ]+ trigger)?, shrinking \d+% per batch[^]*, about [\dhms ]+ to catch up$/);
    // The fields agree with the text: a drain time, and no window trend still reading the growth.
    expect(open!.metrics!.drainEtaSec).toBeGreaterThan(0);
    expect(open!.metrics!.timeBehindTrendSecPerMin).toBeUndefined();
  });

  it('1b. latestOffset printed equal to endOffset, the backlog only in the metrics: a capped query falling behind opens', () => {
    const r = run(
      {
        name: 'payments',
        arrival: steppedRate(8_000, [{ atMs: START + 30 * MIN, rowsPerSec: 13_000 }]),
        processing: cluster,
        triggerMs: 30_000,
        source: { kind: 'kafka', partitions: 16, maxOffsetsPerTrigger: 330_000, latestOffsetAsEnd: true },
        platform: 'dbr-17.0',
      },
      110,
    );
    const onset = onsetIndex(r.batches, START + 30 * MIN);
    const lag = openedLag(r);
    expect(lag).toHaveLength(1);
    expect(lag[0]!.index - onset).toBeLessThanOrEqual(8);
    expect(lag[0]!.incident.causes[0]!.code).toBe('rate_limit_too_low');
  });

  it('2. reports with no source metrics and no latestOffset (Spark 3.0 era): a 12 % overload opens within 8 batches', () => {
    const r = run(
      {
        name: 'events_v1',
        arrival: steppedRate(10_000, [{ atMs: START + 30 * MIN, rowsPerSec: 22_400 }]),
        processing: cluster,
        triggerMs: 15_000,
        source: { kind: 'kafka', partitions: 16 },
        platform: 'spark-3.0',
      },
      150,
    );
    expect(JSON.parse(r.batches[50]!.json).sources[0]).not.toHaveProperty('latestOffset');
    const onset = onsetIndex(r.batches, START + 30 * MIN);
    const lag = openedLag(r);
    expect(lag).toHaveLength(1);
    expect(lag[0]!.index - onset).toBeLessThanOrEqual(8);
    expect(lag[0]!.incident.summary).toMatch(/time behind ≈ the last batch's duration/);
  });

  it('3. a slow creep with noisy input that keeps dipping back is one incident', () => {
    // From 30 min on, input runs 4 % over capacity with 10 % noise, and every ~10 minutes it
    // falls away for a while (40 s to 4 min, drawn), long enough for the backlog to drain: one
    // episode that keeps coming back, which people want as one alert.
    const dips = [0, 1, 2, 3, 4].map((k) => ({ atMs: START + (40 + 11 * k) * MIN, durationMs: [40, 150, 70, 240, 100][k]! * 1_000 }));
    const r = run(
      {
        name: 'sensors',
        arrival: (t) => (t < START + 30 * MIN ? 14_000 : dips.some((d) => t >= d.atMs && t < d.atMs + d.durationMs) ? 4_000 : 20_800),
        arrivalNoise: 0.1,
        processing: cluster,
        triggerMs: 10_000,
        source: { kind: 'kafka', partitions: 16 },
        platform: 'spark-3.5',
      },
      560,
    );
    const lag = openedLag(r);
    expect(lag).toHaveLength(1);
    // Every later lag change is that incident (same openedAt): resolved and re-opened, never new.
    const ids = new Set(r.changes.filter((c) => c.incident.kind === 'lag').map((c) => c.incident.openedAt));
    expect(ids.size).toBe(1);
  });

  it('4. a relapse re-opens as soon as a first opening would: the episode before it is not the normal range', () => {
    // Spark 3.5 reports (no backlog metrics) of a 10 s trigger that loses capacity twice, minutes apart.
    const spec = (second: boolean): StreamSpec => ({
      name: 'orders',
      arrival: constantRate(12_000),
      processing: cluster,
      triggerMs: 10_000,
      source: { kind: 'kafka', partitions: 16 },
      platform: 'spark-3.5',
      events: [
        ...(second ? [{ type: 'change' as const, atBatch: 60, rowsPerSecPerCore: 1_300 }, { type: 'change' as const, atBatch: 95, rowsPerSecPerCore: 2_500 }] : []),
        { type: 'change', atBatch: 135, rowsPerSecPerCore: 1_300 },
      ],
    });
    // Batches from the second loss (batch 135 in both runs) to the lag opening, or re-opening, after it.
    const openedAfter = (r: Run) => r.changes.find((c) => c.incident.kind === 'lag' && c.index >= 135 && (c.type === 'opened' || c.incident.relapses === 1))?.index;
    const relapse = run(spec(true), 200);
    const first = run(spec(false), 200);
    expect(relapse.changes.some((c) => c.type === 'resolved' && c.incident.kind === 'lag' && c.index < 135)).toBe(true);
    expect(openedAfter(first)).toBeDefined();
    expect(openedAfter(relapse)).toBeDefined();
    expect(openedAfter(relapse)!).toBeLessThanOrEqual(openedAfter(first)!);
  });

  it('4. capacity lost for a while, back, then lost again soon after: one incident, re-opened, resolved after the last recovery', () => {
    const r = run(
      {
        name: 'orders',
        arrival: constantRate(12_000),
        processing: cluster,
        triggerMs: 10_000,
        source: { kind: 'kafka', partitions: 16 },
        events: [
          { type: 'change', atBatch: 60, rowsPerSecPerCore: 1_300 }, // 10,400 rows/s: 15 % short
          { type: 'change', atBatch: 110, rowsPerSecPerCore: 2_500 },
          { type: 'change', atBatch: 190, rowsPerSecPerCore: 1_300 },
          { type: 'change', atBatch: 230, rowsPerSecPerCore: 2_500 },
        ],
      },
      360,
    );
    const onset = onsetIndex(r.batches, r.batches[60]!.truth.startMs);
    const lag = openedLag(r);
    expect(lag).toHaveLength(1);
    expect(lag[0]!.index - onset).toBeLessThanOrEqual(8);
    const relapse = r.changes.find((c) => c.type === 'updated' && c.incident.kind === 'lag' && c.incident.relapses === 1);
    expect(relapse).toBeDefined();
    expect(relapse!.incident.openedAt).toBe(lag[0]!.incident.openedAt);
    const healthy = Math.max(...r.batches.slice(0, 60).map((b) => b.truth.timeBehindSec));
    const recovered = r.batches.findIndex((b, i) => i > 230 && r.batches.slice(i).every((x) => x.truth.timeBehindSec <= healthy * 1.5 + 1));
    const resolved = r.changes.filter((c) => c.type === 'resolved' && c.incident.kind === 'lag');
    expect(resolved.at(-1)!.index - recovered).toBeLessThanOrEqual(12);
    expect(r.tracker.report().incidents.filter((i) => i.kind === 'lag')).toHaveLength(1);
  });

  it('4b. a file source whose backlog drains back to 0 files resolves (judged on the files it opened on, not on batch seconds)', () => {
    // Back to back, capped at 40 files: while the files outstanding read 0 the lag signal is the
    // batch duration (about 3.5 s); the incident opens on files waiting and must resolve once
    // they are gone.
    const r = run(
      {
        name: 'landing',
        arrival: constantRate(12_000),
        processing: { ...cluster, overheadMs: 1_200 },
        triggerMs: 0,
        source: { kind: 'autoloader', path: 's3://landing/events/', rowsPerFile: 2_000, maxFilesPerTrigger: 40 },
        events: [
          { type: 'change', atBatch: 60, rowsPerSecPerCore: 1_300 }, // 10,400 rows/s: 15 % short
          { type: 'change', atBatch: 110, rowsPerSecPerCore: 2_500 },
        ],
      },
      260,
    );
    expect(openedLag(r)).toHaveLength(1);
    expect(openedLag(r)[0]!.incident.summary).toMatch(/files waiting/);
    const healthy = Math.max(...r.batches.slice(0, 60).map((b) => b.truth.timeBehindSec));
    const drained = r.batches.findIndex((b, i) => i > 110 && r.batches.slice(i).every((x) => x.truth.timeBehindSec <= healthy * 1.5 + 1));
    const resolved = r.changes.filter((c) => c.type === 'resolved' && c.incident.kind === 'lag');
    expect(resolved).toHaveLength(1);
    expect(resolved[0]!.index - drained).toBeLessThanOrEqual(12);
    expect(r.tracker.report().health).toBe('ok');
  });

  it('5. several queries interleaved in one log: the lagging one opens within 8 batches of its onset', () => {
    const ids = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b', '00000000-0000-4000-8000-00000000000c'];
    const specs: StreamSpec[] = [
      {
        id: ids[0],
        name: 'audit',
        arrival: steppedRate(9_000, [{ atMs: START + 20 * MIN, rowsPerSec: 15_900 }]),
        processing: cluster,
        triggerMs: 0, // back to back, capped: the backlog grows a fraction of a second per batch
        source: { kind: 'kafka', partitions: 8, maxOffsetsPerTrigger: 28_000 },
        platform: 'spark-3.5',
      },
      { id: ids[1], name: 'fast', arrival: constantRate(3_000), processing: cluster, triggerMs: 1_000, source: { kind: 'kafka', partitions: 8 }, platform: 'spark-3.5' },
      { id: ids[2], name: 'slow', arrival: constantRate(9_000), processing: cluster, triggerMs: 60_000, source: { kind: 'kafka', partitions: 8 }, platform: 'spark-3.5' },
    ];
    const streams = specs.map((spec, i) => {
      const sim = new StreamSimulator(spec, { startMs: START, seed: 20 + i });
      const batches: SimulatedBatch[] = [];
      while (batches.length === 0 || batches[batches.length - 1]!.endMs < START + 40 * MIN) batches.push(sim.next());
      return batches;
    });
    const log = streams.flatMap((batches, q) => batches.map((batch, index) => ({ q, index, batch }))).sort((a, b) => a.batch.endMs - b.batch.endMs);
    const trackers = new Map<string, QueryTracker>();
    let opened: { q: number; index: number } | null = null;
    for (const { q, index, batch } of log) {
      const parsed = parseProgress(JSON.parse(batch.json));
      if (!parsed.ok) throw new Error(parsed.error);
      const p = parsed.progress;
      const tracker = trackers.get(p.id) ?? QueryTracker.create(p.id, p.name);
      trackers.set(p.id, tracker);
      for (const change of tracker.observe(p)) {
        if (change.type === 'opened' && change.incident.kind === 'lag') {
          expect(q).toBe(0);
          opened ??= { q, index };
        }
      }
    }
    const onset = onsetIndex(streams[0]!, START + 20 * MIN);
    expect(opened).not.toBeNull();
    expect(opened!.index - onset).toBeLessThanOrEqual(8);
  });

  it('6. after a stall: catching up, with a drain estimate, no partition cause; a short one drains quietly', () => {
    const spec = (stallMin: number): StreamSpec => ({
      name: 'payments_silver',
      arrival: constantRate(10_000),
      processing: cluster,
      triggerMs: 10_000,
      source: { kind: 'kafka', partitions: 16 },
      events: [{ type: 'stall', atBatch: 60, durationMs: stallMin * MIN }],
    });
    // 16 partitions on 32 cores: a partition cause is available, but nothing here is about partitions.
    const long = run(spec(40), 160, { cores: 32 });
    expect(long.changes.some((c) => c.type === 'opened' && c.incident.kind === 'stalled')).toBe(true);
    const lag = openedLag(long);
    expect(lag).toHaveLength(1);
    const incident = lag[0]!.incident;
    expect(incident.summary).toMatch(/^Catching up after a 40m [\ds]*stall \(a batch hung from \d\d:\d\d UTC, reported as stalled\): .* of data waiting, about .+ to drain at the recent processing rate/);
    expect(incident.aftermath?.what).toBe('stall');
    expect(incident.aftermath?.stallOpenedAt).toBeDefined();
    expect(incident.causes[0]!.code).toBe('catching_up');
    expect(incident.advice[0]!.text).toMatch(/hung for 40m/);
    // The batch after the stall read all that piled up at once: a cap keeps a catch-up in normal batches.
    expect(incident.advice.map((a) => a.setting)).toContain('maxOffsetsPerTrigger');
    // The figures say what the summary says: its drain ETA, no growth while it drains.
    const eta = /about ([\dhms ]+) to drain/.exec(incident.summary)![1]!;
    expect(incident.metrics?.drainEtaSec).toBeGreaterThan(0);
    expect(formatDuration(incident.metrics!.drainEtaSec! * 1000)).toBe(eta);
    expect(incident.metrics?.timeBehindTrendSecPerMin ?? 0).toBeLessThanOrEqual(0);
    // 32 cores on 16 partitions do not make a query that processes twice its input lag.
    expect(incident.causes.map((c) => c.code)).not.toContain('kafka_partition_bound');
    expect(incident.advice.map((a) => a.setting)).not.toContain('minPartitions');
    // It drains within the budget from now: wait, with the figure, rather than add workers.
    expect(incident.advice.map((a) => a.text)).toContainEqual(expect.stringMatching(/^Wait for the backlog to drain: at the recent rate that takes about [\dms ]+\./));
    expect(incident.advice.some((a) => /add workers/.test(a.text))).toBe(false);
    // Back at its usual level it says so, not "not draining", up to and in the resolution.
    const resolved = long.changes.find((c) => c.type === 'resolved' && c.incident.kind === 'lag')!;
    expect(resolved.incident.summary).toMatch(/^Catching up after a 40m [\ds]*stall .*: back to about the usual level before it \(\d+s of data waiting\)$/);
    const short = run(spec(12), 140, { cores: 32 });
    expect(short.changes.some((c) => c.type === 'opened' && c.incident.kind === 'stalled')).toBe(true);
    expect(openedLag(short)).toHaveLength(0);
  });
});
