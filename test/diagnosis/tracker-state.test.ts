/**
 * What `QueryTracker.restore` accepts and what `toState` keeps. Every field of a real state (an
 * open lag incident, a Kafka cap binding, a restart's catch-up) broken in turn: restore refuses
 * it, or the tracker it builds observes, ticks, snapshots and serializes without throwing. And the 24 KB bound holds
 * against names and topics of any length, by cutting them rather than the ring of features.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QueryTracker, TrackerStateError, type TrackerState } from '../../src/diagnosis/query-tracker.js';
import { STATE_NAME_MAX_CHARS, TRACKER_STATE_MAX_BYTES } from '../../src/diagnosis/tracker-state.js';
import { TUNING } from '../../src/diagnosis/engine-options.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { readProgressInput } from '../../src/progress/read-progress-input.js';
import type { Progress } from '../../src/progress/types.js';
import { StreamSimulator, steppedRate, type StreamSpec } from '../../src/simulator/index.js';
import { kafkaProgress } from '../store/fixtures.js';
import { MIN, START, cappedNoBacklogSpec } from './run-stream.js';

const realSpark = (file: string) => readProgressInput(readFileSync(new URL(`../fixtures/real-spark/${file}`, import.meta.url), 'utf8')).records.map((r) => r.progress);

function simulated(spec: StreamSpec, count: number): Progress[] {
  const sim = new StreamSimulator(spec, { startMs: START, seed: 1 });
  return sim.take(count).map((batch) => {
    const parsed = parseProgress(JSON.parse(batch.json));
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.progress;
  });
}

/** States worth breaking, each with what the tracker reads after it. */
const BASES: { name: string; progress: Progress[]; at: number; has: (s: TrackerState) => boolean }[] = [
  { name: 'a Kafka query falling behind (real Spark): lag open', progress: realSpark('kafka-capped-overload.jsonl'), at: 150, has: (s) => s.open.lag !== undefined && s.facts !== null },
  {
    name: 'a capped query with no backlog figure (simulated): lag open, the cap binding followed',
    progress: simulated(cappedNoBacklogSpec(steppedRate(6_000, [{ atMs: START + 20 * MIN, rowsPerSec: 9_000 }, { atMs: START + 45 * MIN, rowsPerSec: 5_000 }])), 180),
    at: 140,
    has: (s) => s.open.lag !== undefined && s.capBound != null,
  },
  { name: 'a restart catching up (real Spark): the disruption kept', progress: realSpark('restart-catch-up.jsonl'), at: 60, has: (s) => s.disruption != null },
  {
    name: 'an Auto Loader query counting its files after each batch, restarted (simulated): the counts before it kept',
    progress: simulated(
      {
        name: 'landing_events',
        arrival: 1_000,
        processing: { rowsPerSecPerCore: 300, cores: 4, overheadMs: 1_000 },
        triggerMs: 10_000,
        source: { kind: 'autoloader', rowsPerFile: 500, maxFilesPerTrigger: null, backlogCountedAt: 'end' },
        events: [{ type: 'restart', atBatch: 40, downtimeMs: 10 * MIN }],
      },
      80,
    ),
    at: 45,
    has: (s) => s.disruption?.countsBefore !== undefined && s.disruption.countsBefore.files.length > 0,
  },
];

function stateAfter(progress: Progress[], batches: number): TrackerState {
  const tracker = QueryTracker.create(progress[0]!.id, null);
  for (const p of progress.slice(0, batches)) tracker.observe(p);
  return JSON.parse(JSON.stringify(tracker.toState())) as TrackerState;
}

/** Each way the stored JSON can be broken while still parsing. */
function mutations(base: TrackerState): [string, (s: Record<string, any>) => void][] {
  const out: [string, (s: Record<string, any>) => void][] = [];
  for (const key of Object.keys(base)) {
    if (key === 'v' || key === 'id') continue;
    for (const [label, value] of [['null', null], ['"x"', 'x'], ['[]', []], ['{}', {}], ['7', 7]] as const) {
      out.push([`${key} = ${label}`, (s) => { s[key] = structuredClone(value); }]);
    }
    out.push([`${key} deleted`, (s) => { delete s[key]; }]);
  }
  for (const kind of Object.keys(base.open)) {
    const open = base.open[kind as keyof typeof base.open]!;
    for (const field of Object.keys(open)) {
      out.push([`open.${kind}.${field} deleted`, (s) => { delete s.open[kind][field]; }]);
      out.push([`open.${kind}.${field} = null`, (s) => { s.open[kind][field] = null; }]);
      out.push([`open.${kind}.${field} = "x"`, (s) => { s.open[kind][field] = 'x'; }]);
    }
    for (const field of Object.keys(open.incident)) {
      out.push([`open.${kind}.incident.${field} deleted`, (s) => { delete s.open[kind].incident[field]; }]);
      out.push([`open.${kind}.incident.${field} = null`, (s) => { s.open[kind].incident[field] = null; }]);
    }
    out.push([`open.${kind}.incident.causes[0] = null`, (s) => { s.open[kind].incident.causes[0] = null; }]);
    out.push([`open.${kind}.memo.explainedAt = "x"`, (s) => { s.open[kind].memo.explainedAt = 'x'; }]);
  }
  for (const field of Object.keys(base.capBound ?? {})) {
    out.push([`capBound.${field} = "x"`, (s) => { s.capBound[field] = 'x'; }]);
  }
  for (const field of Object.keys(base.disruption ?? {})) {
    out.push([`disruption.${field} = "x"`, (s) => { s.disruption[field] = 'x'; }]);
    out.push([`disruption.${field} deleted`, (s) => { delete s.disruption[field]; }]);
  }
  if (base.disruption?.countsBefore) {
    out.push(['disruption.countsBefore.files = ["x"]', (s) => { s.disruption.countsBefore.files = ['x']; }]);
    out.push(['disruption.countsBefore.filesPerSec = "x"', (s) => { s.disruption.countsBefore.filesPerSec = 'x'; }]);
  }
  for (const field of Object.keys(base.facts ?? {})) {
    out.push([`facts.${field} deleted`, (s) => { delete s.facts[field]; }]);
    out.push([`facts.${field} = 7`, (s) => { s.facts[field] = 7; }]);
  }
  out.push(['ring row = null', (s) => { s.ring[3] = null; }]);
  out.push(['ring row short', (s) => { s.ring[s.ring.length - 1] = s.ring[s.ring.length - 1].slice(0, 5); }]);
  out.push(['ring rows short (all)', (s) => { s.ring = s.ring.map((r: unknown[]) => r.slice(0, 25)); }]);
  out.push(['resolved = [null]', (s) => { s.resolved = [null]; }]);
  out.push(['open.failed = the lag incident', (s) => { s.open.failed = s.open.lag; }]);
  return out;
}

describe.each(BASES)('tracker state validation: $name', ({ progress, at, has }) => {
  const base = stateAfter(progress, at);
  const rest = progress.slice(at);

  it('the base state has what the mutations break, and restores', () => {
    expect(has(base)).toBe(true);
    expect(() => QueryTracker.restore(structuredClone(base))).not.toThrow();
  });

  it('every field broken in turn: refused by restore, or a tracker that never throws', () => {
    const failures: string[] = [];
    let refused = 0;
    for (const [name, mutate] of mutations(base)) {
      const state = structuredClone(base) as Record<string, any>;
      mutate(state);
      let tracker: QueryTracker;
      try {
        tracker = QueryTracker.restore(state as TrackerState);
      } catch (error) {
        if (!(error instanceof TrackerStateError)) failures.push(`${name}: restore threw ${String(error)}`);
        refused += 1;
        continue;
      }
      try {
        for (const p of rest) tracker.observe(p);
        tracker.tick(rest.at(-1)!.timestampMs + 60_000);
        tracker.refreshFigures();
        tracker.snapshot();
        tracker.report();
        QueryTracker.restore(JSON.parse(JSON.stringify(tracker.toState())));
      } catch (error) {
        failures.push(`${name}: ${String(error)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(refused).toBeGreaterThan(0);
  });
});

describe('tracker state bound', () => {
  it(`stays within ${TRACKER_STATE_MAX_BYTES} bytes of UTF-8 with names and topics of any length, and keeps its whole ring`, () => {
    const T0 = Date.parse('2026-11-29T10:00:00.000Z');
    const tracker = QueryTracker.create('q', null);
    const name = '流'.repeat(200_000); // 3 bytes each in UTF-8
    const topics = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`t${i}${'x'.repeat(50_000)}`, { '0': 1 }]));
    for (let b = 0; b < 60; b += 1) {
      const p = kafkaProgress('q', b, T0, { name });
      p.sources[0]!.endOffset = topics;
      p.sink.description = `DeltaSink[${'s'.repeat(100_000)}]`;
      p.stateOperators[0]!.operatorName = 'o'.repeat(100_000);
      tracker.observe(p);
    }
    const state = tracker.toState();
    expect(Buffer.byteLength(JSON.stringify(state), 'utf8')).toBeLessThanOrEqual(TRACKER_STATE_MAX_BYTES);
    expect(state.ring).toHaveLength(TUNING.ringSize);
    expect(state.name).toHaveLength(STATE_NAME_MAX_CHARS);
    expect(state.name!.endsWith('…')).toBe(true);
    expect(state.facts!.kafkaTopics.map((t) => t.length)).toEqual(Array(5).fill(STATE_NAME_MAX_CHARS));
    expect(state.facts!.stateOperators[0]).toBe(`${'o'.repeat(STATE_NAME_MAX_CHARS - 1)}…`);
    expect(state.facts!.sink.length).toBeLessThanOrEqual(STATE_NAME_MAX_CHARS);
    // The tracker keeps what it read: only what is saved is cut.
    expect(tracker.name).toBe(name);
    expect(() => QueryTracker.restore(JSON.parse(JSON.stringify(state)))).not.toThrow();
  });
});
