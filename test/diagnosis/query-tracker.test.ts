import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../src/diagnosis/engine.js';
import { QueryTracker, TrackerStateError } from '../../src/diagnosis/query-tracker.js';
import { TRACKER_STATE_MAX_BYTES } from '../../src/diagnosis/tracker-state.js';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import type { Progress } from '../../src/progress/types.js';
import { StreamSimulator, steppedRate } from '../../src/simulator/index.js';
import { MIN, START } from './run-stream.js';

const cluster = { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 1_200 };

function progressOf(spec: ConstructorParameters<typeof StreamSimulator>[0], count: number, seed = 5): Progress[] {
  const sim = new StreamSimulator(spec, { startMs: START, seed });
  return sim.take(count).map((batch) => {
    const parsed = parseProgress(JSON.parse(batch.json));
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.progress;
  });
}

const summarize = (changes: IncidentChange[]) =>
  changes.map((c) => `${c.type}:${c.incident.kind}@${c.incident.openedAtBatchId}`);

const overload = {
  id: 'a1b2c3d4-0000-4000-8000-000000000001',
  name: 'orders',
  arrival: steppedRate(12_000, [
    { atMs: START + 10 * MIN, rowsPerSec: 24_000 },
    { atMs: START + 40 * MIN, rowsPerSec: 6_000 },
  ]),
  processing: cluster,
  triggerMs: 10_000,
  source: { kind: 'kafka' as const, partitions: 16, maxOffsetsPerTrigger: 400_000 },
  state: { watermarkMs: null, newKeysPerRow: 0.05 },
};

describe('QueryTracker', () => {
  it('keeps its serialized state under 24 KB however long the history', () => {
    const tracker = QueryTracker.create(overload.id, overload.name);
    const history = progressOf(overload, 2_000);
    let largest = 0;
    history.forEach((p, i) => {
      tracker.observe(p);
      if (i % 100 === 99) largest = Math.max(largest, JSON.stringify(tracker.toState()).length);
    });
    expect(largest).toBeGreaterThan(2_000);
    expect(largest).toBeLessThanOrEqual(TRACKER_STATE_MAX_BYTES);
  });

  it('restored from its JSON state mid-way, it continues exactly as if never stopped', () => {
    const history = progressOf(overload, 400);
    const continuous = QueryTracker.create(overload.id, overload.name);
    const expected = history.flatMap((p) => continuous.observe(p));
    expect(summarize(expected).some((s) => s.startsWith('opened:lag'))).toBe(true);

    let tracker = QueryTracker.create(overload.id, overload.name);
    const actual: IncidentChange[] = [];
    history.forEach((p, i) => {
      actual.push(...tracker.observe(p));
      if (i % 37 === 0) tracker = QueryTracker.restore(JSON.parse(JSON.stringify(tracker.toState())));
    });
    expect(summarize(actual)).toEqual(summarize(expected));
    expect(tracker.report()).toEqual(continuous.report());
  });

  it('rejects a state that is not one, with a typed error', () => {
    expect(() => QueryTracker.restore(null as never)).toThrow(TrackerStateError);
    expect(() => QueryTracker.restore({ v: 99, id: 'x' } as never)).toThrow(/version/);
    try {
      QueryTracker.restore({} as never);
    } catch (error) {
      expect((error as TrackerStateError).code).toBe('streamdoctor_invalid_tracker_state');
    }
  });

  it('treats a repeated batchId as a retry, ignores older reports, and uses idle reports as liveness', () => {
    const history = progressOf({ ...overload, arrival: 8_000, state: undefined }, 30);
    const tracker = QueryTracker.create(overload.id, null);
    for (const p of history) tracker.observe(p);
    const before = tracker.snapshot();
    // The same batch reported again (a retry) replaces it; an older report changes nothing.
    expect(tracker.observe({ ...history[29]!, batchDurationMs: history[29]!.batchDurationMs + 500 })).toEqual([]);
    expect(tracker.snapshot().lastBatchId).toBe(before.lastBatchId);
    expect(tracker.snapshot().batchDurationMs).toBe(history[29]!.batchDurationMs + 500);
    expect(tracker.observe(history[10]!)).toEqual([]);
    expect(tracker.snapshot().lastBatchId).toBe(before.lastBatchId);
    // The very same report delivered twice changes nothing.
    const again = { ...history[29]!, batchDurationMs: history[29]!.batchDurationMs + 500 };
    const stateBefore = JSON.stringify(tracker.toState());
    expect(tracker.observe(again)).toEqual([]);
    expect(JSON.stringify(tracker.toState())).toBe(stateBefore);
    // A no-data report with the same batchId: alive, later lastProgressAt.
    const idle = { ...history[29]!, numInputRows: 0, timestampMs: history[29]!.timestampMs + 10 * MIN, batchDurationMs: 5 };
    tracker.observe(idle);
    expect(Date.parse(tracker.snapshot().lastProgressAt!)).toBe(idle.timestampMs + 5);
  });

  it('follows Spark 2.1/2.2 reports that have no batchId', () => {
    const history = progressOf(overload, 120).map((p) => ({ ...p, batchId: null }));
    const tracker = QueryTracker.create(overload.id, null);
    const changes = history.flatMap((p) => tracker.observe(p));
    const lag = changes.find((c) => c.type === 'opened' && c.incident.kind === 'lag');
    expect(lag?.incident.openedAtBatchId).toBeNull();
    expect(Date.parse(lag!.incident.openedAt)).toBeGreaterThan(START + 10 * MIN);
    expect(tracker.snapshot().lastBatchId).toBeNull();
  });

  it('tells an open incident whose top cause changed (an update people see)', () => {
    // A cap that binds, then the cluster loses capacity: the cause moves from the cap to capacity.
    const sim = new StreamSimulator(
      {
        name: 'payments',
        arrival: steppedRate(8_000, [{ atMs: START + 30 * MIN, rowsPerSec: 13_000 }]),
        processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 600 },
        triggerMs: 30_000,
        source: { kind: 'kafka', partitions: 16, maxOffsetsPerTrigger: 330_000 },
        events: [{ type: 'change', atBatch: 90, rowsPerSecPerCore: 1_000 }],
      },
      { startMs: START, seed: 3 },
    );
    const tracker = QueryTracker.create('q', 'payments');
    const lag: IncidentChange[] = [];
    for (let i = 0; i < 120; i++) {
      const parsed = parseProgress(JSON.parse(sim.next().json));
      if (!parsed.ok) throw new Error(parsed.error);
      lag.push(...tracker.observe(parsed.progress).filter((c) => c.incident.kind === 'lag'));
    }
    expect(lag.map((c) => `${c.type} ${c.incident.causes[0]?.code}`)).toEqual(['opened rate_limit_too_low', 'updated insufficient_capacity']);
  });

  it('rebuilds an open incident\'s causes every ten batches and no more often than every five minutes', () => {
    // A 1 s trigger falling behind: ten batches are ten seconds, too often to rework an alert's causes.
    const sim = new StreamSimulator(
      {
        name: 'clicks',
        arrival: steppedRate(4_000, [{ atMs: START + 5 * MIN, rowsPerSec: 30_000 }]),
        processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 300 },
        triggerMs: 1_000,
        source: { kind: 'kafka', partitions: 16, maxOffsetsPerTrigger: 20_000 },
      },
      { startMs: START, seed: 7 },
    );
    const tracker = QueryTracker.create('q', 'clicks');
    const rebuiltAtMs: number[] = [];
    let previous: string | null = null;
    for (let i = 0; i < 1_800; i++) {
      const parsed = parseProgress(JSON.parse(sim.next().json));
      if (!parsed.ok) throw new Error(parsed.error);
      tracker.observe(parsed.progress);
      // The causes the tracker holds (the saved state), as the evidence moves with the backlog.
      const causes = tracker.toState().open.lag?.incident.causes;
      if (causes && JSON.stringify(causes) !== previous) {
        if (previous !== null) rebuiltAtMs.push(parsed.progress.timestampMs);
        previous = JSON.stringify(causes);
      }
    }
    expect(rebuiltAtMs.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < rebuiltAtMs.length; i++) expect(rebuiltAtMs[i]! - rebuiltAtMs[i - 1]!).toBeGreaterThanOrEqual(5 * MIN);
    // A report read in between shows causes of the latest batch, like its summary, and leaves the
    // tracker's own as they were.
    const held = JSON.stringify(tracker.toState().open.lag!.incident.causes);
    const reported = tracker.report().incidents.find((incident) => incident.kind === 'lag' && incident.resolvedAt === null)!;
    const fresh = QueryTracker.restore(tracker.toState());
    expect(JSON.stringify(tracker.toState().open.lag!.incident.causes)).toBe(held);
    expect(reported.causes.map((c) => c.evidence)).not.toEqual(JSON.parse(held).map((c: { evidence: string }) => c.evidence));
    expect(fresh.report().incidents[0]!.causes).toEqual(reported.causes);
  });

  it('an open incident read at any point says what the latest batch shows, and its changes do not depend on when it is read', () => {
    // Its summary and metrics are built when read (a change, the report, the saved state), not on
    // every firing batch: a tracker read after every batch and one never read must say the same.
    const history = progressOf(overload, 420);
    const readEveryBatch = QueryTracker.create(overload.id, overload.name);
    const neverRead = QueryTracker.create(overload.id, overload.name);
    const eager: IncidentChange[] = [];
    const lazy: IncidentChange[] = [];
    let checked = 0;
    history.forEach((p, i) => {
      eager.push(...readEveryBatch.observe(p));
      const lag = readEveryBatch.report().incidents.find((incident) => incident.kind === 'lag' && incident.resolvedAt === null);
      if (lag && i % 10 === 0) {
        expect(lag.metrics?.batchDurationMs).toBe(p.batchDurationMs);
        expect(lag.metrics?.timeBehindSec).toBe(Math.round(readEveryBatch.snapshot().timeBehindSec! * 10) / 10);
        checked += 1;
      }
      readEveryBatch.toState();
      lazy.push(...neverRead.observe(p));
    });
    expect(checked).toBeGreaterThan(5);
    expect(lazy.some((c) => c.type === 'opened' && c.incident.kind === 'lag')).toBe(true);
    expect(lazy.some((c) => c.type === 'resolved' && c.incident.kind === 'lag')).toBe(true);
    expect(lazy).toEqual(eager);
    expect(neverRead.report()).toEqual(readEveryBatch.report());
    expect(neverRead.toState()).toEqual(readEveryBatch.toState());
  });

  it('snapshot carries the latest key numbers', () => {
    const history = progressOf(overload, 90);
    const tracker = QueryTracker.create(overload.id, null);
    for (const p of history) tracker.observe(p);
    const snapshot = tracker.snapshot();
    expect(snapshot).toMatchObject({ id: overload.id, name: 'orders', triggerMs: 10_000, lastBatchId: history[89]!.batchId });
    expect(snapshot.timeBehindSec).toBeGreaterThan(10);
    expect(snapshot.stateRows).toBe(history[89]!.stateOperators[0]!.numRowsTotal);
    expect(snapshot.arrivalRate).toBeGreaterThan(20_000);
    expect(snapshot.openIncidents).toContain('lag');
  });
});

describe('diagnose', () => {
  it('groups interleaved queries by id, labels them by name, and puts the worst first', () => {
    const troubled = progressOf(overload, 120);
    const until = troubled[119]!.timestampMs;
    // Both queries report over the same hours, in time order, as a shared listener table would.
    const healthy = progressOf(
      { ...overload, id: 'b1b2c3d4-0000-4000-8000-000000000002', name: null, arrival: 6_000, state: undefined },
      1_000,
      9,
    ).filter((p) => p.timestampMs <= until);
    const interleaved = [...healthy, ...troubled].sort((a, b) => a.timestampMs - b.timestampMs);
    const output = diagnose(interleaved);
    expect(output.queries.map((q) => q.name)).toEqual(['orders', null]);
    expect(output.queries[0]!.health).not.toBe('ok');
    expect(output.queries[1]!).toMatchObject({ health: 'ok', incidents: [] });
    const lag = output.queries[0]!.incidents[0]!;
    expect(lag).toMatchObject({ kind: 'lag' });
    expect(Date.parse(lag.openedAt)).toBeGreaterThan(START + 10 * MIN);
    for (const cause of lag.causes) expect(cause.confidence).toBeGreaterThan(0);
    expect([...lag.causes].sort((a, b) => b.confidence - a.confidence)).toEqual(lag.causes);
  });

  it('a single published report yields a report with no incidents', () => {
    const raw = JSON.parse(
      readFileSync(new URL('../fixtures/progress/databricks-kafka-delta-agg-behind.json', import.meta.url), 'utf8'),
    );
    const parsed = parseProgress(raw);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(diagnose([parsed.progress])).toEqual({
      queries: [{ id: raw.id, name: 'orders_5min_agg', health: 'ok', incidents: [] }],
    });
  });
});
