/**
 * The yardsticks themselves: the static 600 s rule and the scoring of engine runs against labels.
 */
import { describe, expect, it } from 'vitest';
import { parseProgress } from '../../src/progress/parse-progress.js';
import type { Progress } from '../../src/progress/types.js';
import type { Incident, IncidentChange } from '../../src/diagnosis/types.js';
import { StreamSimulator, labelScenario, scenarioByName, steppedRate, type StreamSpec } from '../../src/simulator/index.js';
import { StaticBacklogRule, scoreScenario, type EngineRun } from '../../src/simulator/evaluation/index.js';

const T0 = Date.UTC(2026, 8, 14, 10, 0, 0);
const parse = (json: string): Progress => {
  const r = parseProgress(JSON.parse(json));
  if (!r.ok) throw new Error(r.error);
  return r.progress;
};

describe('static rule: STREAMING_BACKLOG_SECONDS > 600 on a 10-minute average', () => {
  const capped = (platform: StreamSpec['platform']): StreamSpec => ({
    arrival: steppedRate(5_000, [{ atMs: T0 + 30 * 60_000, rowsPerSec: 8_000 }]),
    processing: { rowsPerSecPerCore: 2_500 },
    triggerMs: 60_000,
    source: { kind: 'kafka', partitions: 8, maxOffsetsPerTrigger: 400_000 },
    platform,
  });

  it('fires only once the averaged time behind passes 600 s, and its estimate tracks the truth', () => {
    const rule = new StaticBacklogRule();
    const batches = new StreamSimulator(capped('dbr-17.1'), { startMs: T0, seed: 1 }).take(120);
    let firedAt: number | null = null;
    batches.forEach((b, i) => {
      const fired = rule.observe(parse(b.json));
      if (fired && firedAt === null) firedAt = i;
    });
    expect(firedAt).not.toBeNull();
    // Time behind grows ~10 s per 60 s batch from minute 30, so it passes 600 s around batch 90,
    // and the 10-minute average later still.
    expect(batches[firedAt!]!.truth.timeBehindSec).toBeGreaterThan(600);
    expect(batches[firedAt! - 10]!.truth.timeBehindSec).toBeLessThan(700);
    const probe = new StaticBacklogRule();
    let last: number | null = null;
    for (const b of batches) last = probe.timeBehind(parse(b.json));
    expect(last!).toBeGreaterThan(batches[119]!.truth.timeBehindSec * 0.8);
    expect(last!).toBeLessThan(batches[119]!.truth.timeBehindSec * 1.2);
  });

  it('never fires on an uncapped overload under planning-time metrics (behind-latest reads 0)', () => {
    const rule = new StaticBacklogRule();
    const spec: StreamSpec = { ...capped('spark-3.5'), source: { kind: 'kafka', partitions: 8 }, arrival: 24_000, triggerMs: 0 };
    const batches = new StreamSimulator(spec, { startMs: T0, seed: 1 }).take(40);
    expect(batches.some((b) => rule.observe(parse(b.json)))).toBe(false);
    expect(batches[39]!.truth.timeBehindSec).toBeGreaterThan(600);
  });
});

describe('scoring against labels', () => {
  const run = labelScenario(scenarioByName('kafka-cap-too-low'));
  const onset = run.expected[0]!.onsetIndex;
  const incident = (kind: Incident['kind'], cause: string, openedAt: string): Incident => ({
    kind,
    severity: 'warning',
    openedAtBatchId: 1,
    openedAt,
    resolvedAtBatchId: null,
    resolvedAt: null,
    summary: 's',
    causes: [
      { code: 'insufficient_capacity', confidence: 0.4, evidence: '' },
      { code: cause, confidence: 0.9, evidence: '' },
    ],
    advice: [],
  });
  const change = (type: IncidentChange['type'], inc: Incident): IncidentChange => ({ type, queryId: 'q', queryName: null, incident: inc });
  const engineRun = (changes: EngineRun['changes']): EngineRun => ({
    changes,
    output: { queries: [] },
    parseErrors: [],
    staticRuleIndex: null,
    parsed: [],
  });

  it('finds an opening inside the window and judges the highest-confidence cause as last reported', () => {
    const a = incident('lag', 'insufficient_capacity', 'A');
    const b = { ...a, causes: [{ code: 'rate_limit_too_low', confidence: 0.95, evidence: '' }] };
    const score = scoreScenario(run, engineRun([
      { index: onset + 3, atMs: 0, change: change('opened', a) },
      { index: onset + 5, atMs: 0, change: change('updated', b) },
    ]));
    expect(score.expectations[0]!.found?.index).toBe(onset + 3);
    expect(score.expectations[0]!.delayReports).toBe(3);
    expect(score.expectations[0]!.causeCorrect).toBe(true);
    expect(score.falseAlarms).toEqual([]);
  });

  it('an opening too early or too late is a false alarm and the label is missed; a second episode is a false alarm', () => {
    const early = scoreScenario(run, engineRun([{ index: onset - 3, atMs: 0, change: change('opened', incident('lag', 'rate_limit_too_low', 'E')) }]));
    expect(early.expectations[0]!.found).toBeNull();
    expect(early.falseAlarms.map((o) => o.index)).toEqual([onset - 3]);
    const twice = scoreScenario(run, engineRun([
      { index: onset + 1, atMs: 0, change: change('opened', incident('lag', 'rate_limit_too_low', 'A')) },
      { index: onset + 9, atMs: 0, change: change('opened', incident('lag', 'rate_limit_too_low', 'B')) },
    ]));
    expect(twice.expectations[0]!.found?.index).toBe(onset + 1);
    expect(twice.falseAlarms.map((o) => o.index)).toEqual([onset + 9]);
  });

  it('a wrong top cause is found but not right', () => {
    const score = scoreScenario(run, engineRun([{ index: onset, atMs: 0, change: change('opened', incident('lag', 'slow_sink', 'A')) }]));
    expect(score.expectations[0]!.found).not.toBeNull();
    expect(score.expectations[0]!.causeCorrect).toBe(false);
  });
});
