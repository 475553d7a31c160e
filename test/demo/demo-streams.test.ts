/**
 * The demo's promise, checked offline: played through the real parser and engine on the demo's
 * accelerated clock, each stream tells its story within about a minute of wall-clock time, and the
 * healthy one (with its burst) stays quiet.
 */
import { describe, expect, it } from 'vitest';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import { DEMO_SPEED, DEMO_STREAMS, type DemoStream } from '../../src/demo/demo-streams.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { StreamSimulator } from '../../src/simulator/index.js';

const START = Date.UTC(2026, 10, 29, 20, 0, 0);
/** How often the demo's worker looks (poll + sweep), in simulated ms: 2 s of wall clock. */
const LOOK_EVERY_MS = 2_000 * DEMO_SPEED;

interface Seen {
  change: IncidentChange;
  /** Wall-clock seconds after the demo started. */
  wallSec: number;
}

function play(stream: DemoStream, wallSeconds: number): Seen[] {
  const sim = new StreamSimulator(stream.spec(START), { startMs: START, seed: stream.seed });
  const spec = stream.spec(START);
  const tracker = QueryTracker.create(stream.queryId, stream.name, { triggerMs: spec.triggerMs, cores: spec.processing.cores });
  const seen: Seen[] = [];
  let pending = sim.next();
  const end = START + wallSeconds * 1_000 * DEMO_SPEED;
  for (let now = START; now <= end; now += LOOK_EVERY_MS) {
    const wallSec = (now - START) / 1_000 / DEMO_SPEED;
    for (let guard = 0; pending.endMs <= now && guard < 10_000; guard++) {
      const parsed = parseProgress(JSON.parse(pending.json));
      expect(parsed.ok, `the simulator's progress parses (${stream.name})`).toBe(true);
      if (parsed.ok) for (const change of tracker.observe(parsed.progress)) seen.push({ change, wallSec });
      pending = sim.next();
    }
    for (const change of tracker.tick(now)) seen.push({ change, wallSec });
  }
  return seen;
}

const byStory = (story: DemoStream['story']) => DEMO_STREAMS.find((s) => s.story === story)!;
const firstOpened = (seen: Seen[], kind: string) => seen.find((s) => s.change.type === 'opened' && s.change.incident.kind === kind);

describe('the demo streams', () => {
  it('are five, one per story, with distinct ids and names', () => {
    expect(DEMO_STREAMS.map((s) => s.story).sort()).toEqual(['healthy', 'lag', 'slow_repartition', 'stalled', 'state_growth']);
    expect(new Set(DEMO_STREAMS.map((s) => s.queryId)).size).toBe(5);
    expect(new Set(DEMO_STREAMS.map((s) => s.name)).size).toBe(5);
    for (const stream of DEMO_STREAMS) expect(stream.spec(START).id).toBe(stream.queryId);
  });

  it('the healthy stream, burst included, opens nothing in two minutes', () => {
    expect(play(byStory('healthy'), 120)).toEqual([]);
  });

  it('the overloaded stream raises a lag alert within a minute', () => {
    const seen = play(byStory('lag'), 60);
    const lag = firstOpened(seen, 'lag');
    expect(lag, 'a lag incident opens').toBeDefined();
    expect(lag!.wallSec).toBeGreaterThan(5); // after the overload starts, not at once
    expect(lag!.wallSec).toBeLessThanOrEqual(45);
    expect(lag!.change.incident.summary).toMatch(/behind/i);
  });

  it('the unbounded state is flagged within a minute', () => {
    const growth = firstOpened(play(byStory('state_growth'), 60), 'state_growth');
    expect(growth, 'a state_growth incident opens').toBeDefined();
    expect(growth!.change.incident.causes.map((c) => c.code)).toContain('unbounded_state');
  });

  it('the long state repartition is reported within about a minute', () => {
    const repartition = firstOpened(play(byStory('slow_repartition'), 75), 'slow_repartition');
    expect(repartition, 'a slow_repartition incident opens').toBeDefined();
    expect(repartition!.wallSec).toBeLessThanOrEqual(75);
  });

  it('the stalled stream is caught within a minute', () => {
    const stalled = firstOpened(play(byStory('stalled'), 60), 'stalled');
    expect(stalled, 'a stalled incident opens').toBeDefined();
    expect(stalled!.change.incident.severity).toBe('critical');
  });
});
