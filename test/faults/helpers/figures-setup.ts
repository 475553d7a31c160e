/**
 * Global setup of the fault suite: a file the scenarios append their figures to (one JSON line each,
 * `recordFigures`), and at the end of the run the one table of all of them, with the seed of the kill
 * points so a failure can be replayed (STREAMDOCTOR_FAULTS_SEED=<seed> npm run test:faults).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { figuresTable, type AlertFigures } from '../../helpers/alert-ledger.js';

declare module 'vitest' {
  export interface ProvidedContext {
    faultsFiguresFile: string;
    faultsSeed: number;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'sd-faults-'));
  const file = join(dir, 'figures.jsonl');
  const fromEnv = Number(process.env.STREAMDOCTOR_FAULTS_SEED);
  const seed = Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 1 + Math.floor(Math.random() * 2 ** 31);
  project.provide('faultsFiguresFile', file);
  project.provide('faultsSeed', seed);
  process.stdout.write(`\n== fault suite seed ${seed} (replay: STREAMDOCTOR_FAULTS_SEED=${seed} npm run test:faults)\n`);
  return () => {
    const rows = existsSync(file)
      ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as AlertFigures)
      : [];
    process.stdout.write(`\n== fault suite figures (seed ${seed})\n${rows.length ? figuresTable(rows) : '(no scenario recorded figures)'}\n`);
    for (const row of rows) for (const note of row.notes ?? []) process.stdout.write(`   ${row.scenario}: ${note}\n`);
    for (const row of rows) for (const detail of row.details) process.stdout.write(`   ${row.scenario}: ${detail}\n`);
    rmSync(dir, { recursive: true, force: true });
  };
}
