import { describe, expect, it } from 'vitest';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { runRandomEngine } from '../../src/simulator/evaluation/index.js';
import { REPORTING_MODES, drawScenario, simulateRandom, type ReportingMode } from '../../src/simulator/random/index.js';

type Obj = Record<string, unknown>;
// Seeds from 900000 (tuning uses 1–1000, the measured eval 100000+).
const sims = (mode: ReportingMode, family: 'step-overload' | 'utilization' = 'step-overload') =>
  [0, 1, 2, 3].map((k) => simulateRandom(drawScenario(900_300 + k, { family, mode })));
const sources = (json: string) => (JSON.parse(json) as { sources: Obj[] }).sources;
const offsetSum = (o: unknown) =>
  Object.values(o as Record<string, Record<string, number>>).reduce((a, parts) => a + Object.values(parts).reduce((x, y) => x + y, 0), 0);

describe.each(REPORTING_MODES)('reporting mode %s', (mode) => {
  const runs = [...sims(mode), ...sims(mode, 'utilization')];

  it('every report parses with parseProgress', () => {
    for (const sim of runs) {
      for (const e of sim.log) {
        const r = parseProgress(JSON.parse(e.batch.json));
        expect(r.ok, `seed ${sim.scenario.seed} report ${e.index}`).toBe(true);
      }
    }
  });

  it('has the documented shape', () => {
    for (const sim of runs) {
      for (const e of sim.log) {
        const [s] = sources(e.batch.json);
        const truth = e.batch.truth;
        switch (mode) {
          case 'no-metrics':
            expect(s).not.toHaveProperty('latestOffset');
            expect(s).not.toHaveProperty('metrics');
            expect(JSON.parse(e.batch.json)).not.toHaveProperty('batchDuration');
            break;
          case 'latest-is-end':
            expect(s!.latestOffset).toEqual(s!.endOffset);
            // Databricks 17.1 metrics: the backlog after the batch, non-zero while rows wait.
            if (truth.backlogRows > 0 && truth.kind === 'data') {
              expect(Number((s!.metrics as Record<string, string>).avgOffsetsBehindLatest)).toBeGreaterThan(0);
            }
            break;
          case 'oss-planning': {
            const q = sim.queries[e.query]!;
            const uncapped = q.query.spec.source.kind === 'kafka' && q.query.spec.source.maxOffsetsPerTrigger == null;
            if (uncapped && e.index > 0) {
              expect(offsetSum(s!.latestOffset)).toBe(offsetSum(s!.endOffset));
              expect((s!.metrics as Record<string, string>).maxOffsetsBehindLatest).toBe('0');
            }
            break;
          }
          case 'dbr-17.1':
            expect(s!.description).toMatch(/^KafkaV2\[Subscribe\[/);
            if (truth.kind === 'data' && truth.backlogRows > 0) expect(offsetSum(s!.latestOffset)).toBeGreaterThan(offsetSum(s!.endOffset));
            break;
          case 'kinesis': {
            expect(s!.description).toMatch(/^KinesisV2\[/);
            expect(s!.latestOffset).toBeNull();
            const ms = Number((s!.metrics as Record<string, string>).maxMsBehindLatest);
            expect(Math.abs(ms / 1_000 - truth.timeBehindSec)).toBeLessThan(0.01 + truth.timeBehindSec * 0.001);
            break;
          }
          case 'delta-files':
            expect(s!.description).toMatch(/^DeltaSource\[/);
            expect(s!.metrics).toHaveProperty('numFilesOutstanding');
            expect(s!.metrics).toHaveProperty('numBytesOutstanding');
            break;
          case 'autoloader':
            expect(s!.description).toMatch(/^CloudFilesSource\[/);
            expect(s!.metrics).toHaveProperty('numFilesOutstanding');
            break;
        }
      }
    }
  });
});

describe('the random runner', () => {
  it('routes an interleaved log to one tracker per query id and judges each query on its own reports', () => {
    const sim = simulateRandom(drawScenario(900_310, { family: 'interleaved', mode: 'dbr-17.1' }));
    const runs = runRandomEngine(sim);
    expect(runs).toHaveLength(sim.queries.length);
    runs.forEach((run, i) => {
      const q = sim.queries[i]!;
      expect(run.parseErrors).toEqual([]);
      expect(run.staticFires).toHaveLength(q.batches.length);
      for (const c of run.changes) {
        expect(c.change.queryId).toBe(q.query.spec.id);
        expect(c.index).toBeLessThanOrEqual(q.batches.length);
        expect(c.atMs).toBeLessThanOrEqual(q.nowMs);
      }
    });
  });
});
