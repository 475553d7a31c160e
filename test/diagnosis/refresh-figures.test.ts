/**
 * An alert open for hours shows figures of the last quarter hour: `refreshFigures` tells an open
 * incident again (an 'updated' change, the alert edited in place) once its figures moved and at
 * least `TUNING.refreshFiguresMs` of batch time after they were last told; never when they hold
 * still, and without changing what `observe` decides.
 */
import { describe, expect, it } from 'vitest';
import { TUNING } from '../../src/diagnosis/engine-options.js';
import { QueryTracker, type TrackerState } from '../../src/diagnosis/query-tracker.js';
import { figuresMoved, toldFigures } from '../../src/diagnosis/told-figures.js';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { StreamSimulator, steppedRate, type StreamSpec } from '../../src/simulator/index.js';
import { START } from './run-stream.js';

const T = 30_000;

/** Capped at 150,000 offsets a batch (5,000 rows/s) on a 30 s trigger; the input steps to 6,500 rows/s, then to `later`. */
function spec(later: number): StreamSpec {
  return {
    name: 'orders_enriched',
    processing: { rowsPerSecPerCore: 2_500, cores: 8 },
    triggerMs: T,
    arrival: steppedRate(4_000, [
      { atMs: START + 20 * T, rowsPerSec: 6_500 },
      { atMs: START + 140 * T, rowsPerSec: later },
    ]),
    source: { kind: 'kafka', topic: 'orders', partitions: 8, maxOffsetsPerTrigger: 150_000 },
  };
}

interface Run {
  observed: (IncidentChange & { index: number })[];
  refreshed: (IncidentChange & { index: number })[];
}

/** Every report through a tracker restored from its saved state each time, as the worker does; refreshes asked after each when `refresh`. */
function run(later: number, reports: number, refresh: boolean): Run {
  const sim = new StreamSimulator(spec(later), { startMs: START, seed: 7 });
  let tracker = QueryTracker.create('q', 'orders_enriched');
  const out: Run = { observed: [], refreshed: [] };
  for (let index = 0; index < reports; index += 1) {
    const parsed = parseProgress(JSON.parse(sim.next().json));
    if (!parsed.ok) throw new Error(parsed.error);
    for (const change of tracker.observe(parsed.progress)) out.observed.push({ ...change, index });
    if (refresh) for (const change of tracker.refreshFigures()) out.refreshed.push({ ...change, index });
    tracker = QueryTracker.restore(JSON.parse(JSON.stringify(tracker.toState())) as TrackerState);
  }
  return out;
}

const lagOf = <C extends IncidentChange>(changes: C[]): C[] => changes.filter((c) => c.incident.kind === 'lag');

describe('refreshFigures', () => {
  it('tells a growing lag again every quarter hour or so, each time with figures that moved', () => {
    const { observed, refreshed } = run(6_500, 140, true);
    const opened = lagOf(observed).find((c) => c.type === 'opened');
    expect(opened).toBeDefined();
    const lag = lagOf(refreshed);
    // 120 batches of 30 s behind from the step: an hour, growing all along.
    expect(lag.length).toBeGreaterThanOrEqual(3);
    let told = opened!.incident;
    for (const change of lag) {
      expect(change.type).toBe('updated');
      expect(Date.parse(change.incident.figuresAt!) - Date.parse(told.figuresAt!)).toBeGreaterThanOrEqual(TUNING.refreshFiguresMs);
      expect(change.incident.metrics!.timeBehindSec!).toBeGreaterThan(1.25 * told.metrics!.timeBehindSec! - 1);
      expect(change.incident.summary).not.toBe(told.summary);
      told = change.incident;
    }
    // The alert's last figures are those of the last quarter hour or so of the run.
    const lastBatchStart = START + 139 * T;
    expect(lastBatchStart - Date.parse(told.figuresAt!)).toBeLessThan(TUNING.refreshFiguresMs + 5 * T);
  });

  it('tells the causes of the batch its figures are of, not those of the last rebuild', () => {
    // A 5 min trigger: causes are rebuilt every 10 batches (50 min), figures told every quarter hour.
    const sim = new StreamSimulator({ ...spec(6_500), triggerMs: 5 * 60_000, arrival: steppedRate(4_000, [{ atMs: START + 20 * 5 * 60_000, rowsPerSec: 6_500 }]), source: { kind: 'kafka', topic: 'orders', partitions: 8, maxOffsetsPerTrigger: 1_500_000 } }, { startMs: START, seed: 7 });
    const tracker = QueryTracker.create('q', 'orders_enriched');
    const compared: string[] = [];
    for (let index = 0; index < 80; index += 1) {
      const parsed = parseProgress(JSON.parse(sim.next().json));
      if (!parsed.ok) throw new Error(parsed.error);
      tracker.observe(parsed.progress);
      for (const change of lagOf(tracker.refreshFigures())) {
        // What a report of this moment says: causes rebuilt from the newest batch.
        const now = tracker.report().incidents.find((incident) => incident.kind === 'lag')!;
        expect(change.incident.figuresAt).toBe(now.figuresAt);
        expect(change.incident.causes).toEqual(now.causes);
        compared.push(change.incident.figuresAt!);
      }
    }
    expect(compared.length).toBeGreaterThanOrEqual(2);
  });

  it('leaves the changes observe makes as they are', () => {
    const asked = run(6_500, 200, true).observed;
    const not = run(6_500, 200, false).observed;
    expect(asked.map((c) => [c.index, c.type, c.incident.kind, c.incident.severity])).toEqual(
      not.map((c) => [c.index, c.type, c.incident.kind, c.incident.severity]),
    );
  });

  it('says nothing while the figures hold still', () => {
    // The input falls back to what the cap admits after an hour: time behind stays where it got to.
    const { observed, refreshed } = run(5_000, 260, true);
    const lag = lagOf(observed);
    expect(lag.some((c) => c.type === 'opened')).toBe(true);
    expect(lag.some((c) => c.type === 'resolved')).toBe(false);
    const plateau = lagOf(refreshed).filter((c) => c.index >= 160);
    expect(plateau).toEqual([]);
  });
});

describe('refreshFigures on a stall', () => {
  it('tells the silence again as it lasts, by the time of the tick that read it', () => {
    const sim = new StreamSimulator(spec(4_000), { startMs: START, seed: 7 });
    const tracker = QueryTracker.create('q', 'orders_enriched');
    let lastEnd = START;
    for (let index = 0; index < 40; index += 1) {
      const batch = sim.next();
      const parsed = parseProgress(JSON.parse(batch.json));
      if (!parsed.ok) throw new Error(parsed.error);
      tracker.observe(parsed.progress);
      lastEnd = batch.endMs;
    }
    // Then silence: the sweep ticks every minute for three hours, and detect asks for refreshes after each.
    const ticked: IncidentChange[] = [];
    const refreshed: IncidentChange[] = [];
    for (let nowMs = lastEnd + 60_000; nowMs <= lastEnd + 3 * 3_600_000; nowMs += 60_000) {
      ticked.push(...tracker.tick(nowMs));
      refreshed.push(...tracker.refreshFigures());
    }
    expect(ticked.filter((c) => c.type === 'opened').map((c) => c.incident.kind)).toEqual(['stalled']);
    const opened = ticked.find((c) => c.type === 'opened')!;
    expect(refreshed.length).toBeGreaterThanOrEqual(3);
    let told = opened.incident;
    for (const change of refreshed) {
      expect(change).toMatchObject({ type: 'updated', incident: { kind: 'stalled', openedAt: opened.incident.openedAt } });
      expect(Date.parse(change.incident.figuresAt!) - Date.parse(told.figuresAt!)).toBeGreaterThanOrEqual(TUNING.refreshFiguresMs);
      expect(change.incident.metrics!.silentSec!).toBeGreaterThanOrEqual(1.25 * told.metrics!.silentSec!);
      // The silence it says is the one up to the tick its figures are of.
      expect(change.incident.metrics!.silentSec! * 1000).toBeCloseTo(Date.parse(change.incident.figuresAt!) - lastEnd, -4);
      told = change.incident;
    }
    expect(lastEnd + 3 * 3_600_000 - Date.parse(told.figuresAt!)).toBeLessThan(0.25 * 3 * 3_600_000 + TUNING.refreshFiguresMs);
  });
});

describe('figuresMoved', () => {
  it('counts a quarter up or down, a figure that came or went, and draining that started or stopped', () => {
    const base = toldFigures({ timeBehindSec: 600, backlog: 1_000_000, drainEtaSec: null });
    expect(figuresMoved(base, toldFigures({ timeBehindSec: 700, backlog: 1_100_000, drainEtaSec: null }))).toBe(false);
    expect(figuresMoved(base, toldFigures({ timeBehindSec: 900, backlog: 1_100_000, drainEtaSec: null }))).toBe(true);
    expect(figuresMoved(base, toldFigures({ timeBehindSec: 600, backlog: 700_000, drainEtaSec: null }))).toBe(true);
    expect(figuresMoved(base, toldFigures({ timeBehindSec: 600, backlog: 1_000_000, drainEtaSec: 3_000 }))).toBe(true);
    expect(figuresMoved(base, toldFigures({ timeBehindSec: 600, drainEtaSec: null }))).toBe(true);
    // A minute is the least time behind that counts: 40 s to 90 s is noise on a slow trigger.
    expect(figuresMoved(toldFigures({ timeBehindSec: 40 }), toldFigures({ timeBehindSec: 90 }))).toBe(false);
    expect(figuresMoved(toldFigures({ timeBehindSec: 40 }), toldFigures({ timeBehindSec: 110 }))).toBe(true);
  });
});

describe('a state saved before told figures were kept', () => {
  it('tells its figures once, a refresh period after the first ask (what the alert shows is not known)', () => {
    const sim = new StreamSimulator(spec(6_500), { startMs: START, seed: 7 });
    let tracker = QueryTracker.create('q', 'orders_enriched');
    let opened = false;
    for (let index = 0; !opened && index < 140; index += 1) {
      const parsed = parseProgress(JSON.parse(sim.next().json));
      if (!parsed.ok) throw new Error(parsed.error);
      opened = tracker.observe(parsed.progress).some((c) => c.type === 'opened' && c.incident.kind === 'lag');
    }
    expect(opened).toBe(true);
    const state = JSON.parse(JSON.stringify(tracker.toState())) as TrackerState;
    delete state.open.lag!.toldAtMs;
    delete state.open.lag!.told;
    tracker = QueryTracker.restore(state);
    expect(tracker.refreshFigures()).toEqual([]);
    const saved = tracker.toState().open.lag!;
    expect(saved.toldAtMs).toBeTypeOf('number');
    expect(saved.told).toEqual({});
    const told: IncidentChange[] = [];
    for (let index = 0; told.length === 0 && index < 60; index += 1) {
      const parsed = parseProgress(JSON.parse(sim.next().json));
      if (!parsed.ok) throw new Error(parsed.error);
      tracker.observe(parsed.progress);
      told.push(...tracker.refreshFigures());
    }
    expect(told).toHaveLength(1);
    expect(Date.parse(told[0]!.incident.figuresAt!) - saved.toldAtMs!).toBeGreaterThanOrEqual(TUNING.refreshFiguresMs);
  });
});
