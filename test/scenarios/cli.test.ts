/**
 * The same labelled scenarios through the real CLI a user runs (`streamdoctor diagnose FILE --format
 * json` with the scenario's flags): its report must agree with the in-process engine run.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { labelScenario, scenarioByName } from '../../src/simulator/index.js';
import { runEngine } from '../../src/simulator/evaluation/index.js';
import type { DiagnoseOutput } from '../../src/diagnosis/types.js';

const dir = mkdtempSync(join(tmpdir(), 'sd-corpus-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('corpus through `streamdoctor diagnose`', () => {
  it.each(['kafka-cap-too-low', 'stalled-query', 'data-loss-risk-short-retention', 'too-few-shuffle-partitions', 'retried-batches'])(
    '%s: the CLI reports what the engine finds in process',
    (name) => {
      const run = labelScenario(scenarioByName(name));
      const file = join(dir, `${name}.jsonl`);
      writeFileSync(file, `${run.batches.map((b) => b.json).join('\n')}\n`);
      const { engine } = run.scenario;
      const args = ['bin/streamdoctor.mjs', 'diagnose', file, '--format', 'json', '--now', new Date(run.nowMs).toISOString()];
      if (engine.retentionMs !== undefined) args.push('--retention', `${engine.retentionMs}ms`);
      if (engine.cores !== undefined) args.push('--cores', String(engine.cores));
      if (engine.triggerMs !== undefined) args.push('--trigger', `${engine.triggerMs}ms`);
      const result = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 60_000 });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      const cli = JSON.parse(result.stdout) as DiagnoseOutput;
      const inProcess = runEngine(run).output;
      const shape = (o: DiagnoseOutput) =>
        o.queries.map((q) => ({
          id: q.id,
          name: q.name,
          health: q.health,
          incidents: q.incidents.map((i) => [i.kind, i.openedAtBatchId, i.resolvedAtBatchId, i.causes.map((c) => c.code)]),
        }));
      expect(shape(cli)).toEqual(shape(inProcess));
      expect(cli.queries[0]!.id).toBe(run.batches[0]!.progress.id);
    },
  );
});
