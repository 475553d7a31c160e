/**
 * `npm run eval -- --random N`: N randomized draws (src/simulator/random) through the real parser
 * and engine, scored against labels from the simulator's truth, printed per family and per
 * reporting mode beside the static "time behind > 600 s" rule, then the issue's targets and the
 * worst draws (seeds to replay).
 *
 *   --random N        how many draws (1–100000)
 *   --seed-base B     seeds B … B+N−1 (default 100000; tests use 900000+, tuning 1–5000: see src/simulator/README.md)
 *   --only FAMILY     force every draw's family      --mode MODE   force every draw's reporting mode
 *   --file-size-spread S   Delta and Auto Loader files whose rows vary by up to S (0–0.9) of their
 *                     mean either way, as real files do (default 0: every file the same size)
 *   --json            the per-draw scores and the summaries as JSON
 *   --dump DIR        also write DIR/SEED.jsonl (what `streamdoctor diagnose` reads) and DIR/SEED.labels.json
 *   --worst K         worst draws to list per family and problem (default 3; 0 = none)
 *   --jobs J          processes to spread the draws over (default: the machine's cores)
 */

import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { groupBy, judgeTargets, runRandomEngine, scoreRandom, summarize, type DrawScore } from '../src/simulator/evaluation/index.js';
import { printWorst, table } from './random-report.js';
import {
  FAMILIES,
  REPORTING_MODES,
  MODE_DESCRIPTIONS,
  drawScenario,
  isQuietFamily,
  simulateRandom,
  type Family,
  type ReportingMode,
  type SimulatedRandom,
} from '../src/simulator/random/index.js';

class UsageError extends Error {}

/** Writes to stdout and waits until it is flushed: the caller exits right after, and a pipe is asynchronous. */
function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())));
}

interface RandomArgs {
  count: number;
  seedBase: number;
  only?: Family;
  mode?: ReportingMode;
  fileSizeSpread: number;
  json: boolean;
  dumpDir?: string;
  worst: number;
  jobs: number;
  /** Internal: this process computes only shard i of k and writes its scores as JSON. */
  shard?: { i: number; k: number };
}

function parseArgs(args: string[]): RandomArgs {
  const value = (flag: string): string | undefined => {
    const at = args.indexOf(flag);
    if (at < 0) return undefined;
    const v = args[at + 1];
    if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  const integer = (flag: string, min: number, max: number, fallback: number): number => {
    const text = value(flag);
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new UsageError(`${flag} needs a whole number from ${min} to ${max}, not "${text}"`);
    }
    return n;
  };
  const only = value('--only');
  if (only !== undefined && !(FAMILIES as readonly string[]).includes(only)) {
    throw new UsageError(`--only needs a family: ${FAMILIES.join(', ')} (not "${only}")`);
  }
  const mode = value('--mode');
  if (mode !== undefined && !(REPORTING_MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`--mode needs a reporting mode: ${REPORTING_MODES.join(', ')} (not "${mode}")`);
  }
  const spreadText = value('--file-size-spread');
  const fileSizeSpread = spreadText === undefined ? 0 : Number(spreadText);
  if (!/^\d*\.?\d+$/.test(spreadText ?? '0') || !(fileSizeSpread >= 0 && fileSizeSpread <= 0.9)) {
    throw new UsageError(`--file-size-spread needs a number from 0 to 0.9, not "${spreadText}"`);
  }
  const shardText = value('--shard');
  let shard: RandomArgs['shard'];
  if (shardText !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(shardText);
    if (!m || Number(m[1]) >= Number(m[2])) throw new UsageError(`--shard needs i/k with i < k, not "${shardText}"`);
    shard = { i: Number(m[1]), k: Number(m[2]) };
  }
  return {
    count: integer('--random', 1, 100_000, 0),
    seedBase: integer('--seed-base', 0, 2_000_000_000, 100_000),
    only: only as Family | undefined,
    mode: mode as ReportingMode | undefined,
    fileSizeSpread,
    json: args.includes('--json'),
    dumpDir: value('--dump'),
    worst: integer('--worst', 0, 1_000, 3),
    jobs: integer('--jobs', 1, 64, Math.max(1, availableParallelism())),
    shard,
  };
}

function dump(dir: string, sim: SimulatedRandom): void {
  mkdirSync(dir, { recursive: true });
  const seed = sim.scenario.seed;
  writeFileSync(join(dir, `${seed}.jsonl`), `${sim.log.map((e) => e.batch.json).join('\n')}\n`);
  const labels = {
    seed,
    family: sim.scenario.family,
    mode: sim.scenario.mode,
    queries: sim.queries.map((q) => ({
      id: q.query.spec.id,
      name: q.query.spec.name,
      family: q.query.family,
      description: q.query.description,
      params: q.query.params,
      reports: q.batches.length,
      judgedAt: new Date(q.nowMs).toISOString(),
      labels: q.labels.map((l) =>
        l.kind === 'lag'
          ? {
              ...l,
              onsetBatchId: q.batches[l.onsetIndex]?.truth.batchId ?? null,
              onset: new Date(l.onsetMs).toISOString(),
              deadlineBatchId: q.batches[l.deadlineIndex]?.truth.batchId ?? null,
              recoveryBatchId: l.recoveryIndex === null ? null : (q.batches[l.recoveryIndex]?.truth.batchId ?? null),
              end: new Date(l.endMs).toISOString(),
            }
          : { ...l, batchId: q.batches[l.index]?.truth.batchId ?? null, from: new Date(l.fromMs).toISOString(), to: new Date(l.toMs).toISOString() },
      ),
    })),
  };
  writeFileSync(join(dir, `${seed}.labels.json`), `${JSON.stringify(labels, null, 2)}\n`);
}

function scoreSeeds(a: RandomArgs, seeds: number[]): DrawScore[] {
  return seeds.map((seed) => {
    const sim = simulateRandom(drawScenario(seed, { family: a.only, mode: a.mode, fileSizeSpread: a.fileSizeSpread }));
    if (a.dumpDir) dump(a.dumpDir, sim);
    return scoreRandom(sim, runRandomEngine(sim));
  });
}

/** Runs the shards in child processes (the same script) and merges their scores in seed order. */
async function scoreInProcesses(a: RandomArgs, rawArgs: string[]): Promise<DrawScore[]> {
  // The same entry point, loaded through the TypeScript runner as `npm run eval` does.
  const runner = fileURLToPath(new URL('../bin/run-ts.mjs', import.meta.url));
  const script = fileURLToPath(new URL('./eval.ts', import.meta.url));
  const parts = await Promise.all(
    Array.from({ length: a.jobs }, (_, i) =>
      new Promise<DrawScore[]>((resolve, reject) => {
        const child = spawn(process.execPath, [runner, script, ...rawArgs, '--shard', `${i}/${a.jobs}`], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        const chunks: Buffer[] = [];
        child.stdout.on('data', (c: Buffer) => chunks.push(c));
        child.on('error', reject);
        child.on('close', (code) => {
          if (code !== 0) reject(new Error(`eval shard ${i}/${a.jobs} exited with ${code}`));
          else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as DrawScore[]);
        });
      }),
    ),
  );
  return parts.flat().sort((x, y) => x.seed - y.seed);
}

export async function runRandomEval(rawArgs: string[]): Promise<number> {
  let a: RandomArgs;
  try {
    a = parseArgs(rawArgs);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`eval: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const seeds = Array.from({ length: a.count }, (_, i) => a.seedBase + i);
  if (a.shard) {
    const mine = seeds.filter((_, i) => i % a.shard!.k === a.shard!.i);
    await writeOut(JSON.stringify(scoreSeeds(a, mine)));
    return 0;
  }
  const started = performance.now();
  const jobs = Math.min(a.jobs, Math.ceil(a.count / 25));
  const draws = jobs > 1 ? await scoreInProcesses({ ...a, jobs }, rawArgs) : scoreSeeds(a, seeds);
  const elapsedSec = (performance.now() - started) / 1_000;
  const byFamily = groupBy(draws, (d) => d.family, FAMILIES);
  const byMode = groupBy(draws, (d) => d.mode, REPORTING_MODES);
  // The admission cap of the draw's first (in an interleaved log: the lagging) query.
  const byCap = groupBy(draws, (d) => (d.queries[0]?.capped ? 'capped' : 'uncapped'), ['uncapped', 'capped']);
  const overall = summarize('all', draws);
  const targets = judgeTargets(draws);
  if (a.json) {
    await writeOut(`${JSON.stringify({ seeds: [a.seedBase, a.seedBase + a.count - 1], fileSizeSpread: a.fileSizeSpread, byFamily, byMode, byCap, overall, targets, draws }, null, 2)}\n`);
    return 0;
  }
  const out: string[] = [
    `${a.count} random draws, seeds ${a.seedBase}–${a.seedBase + a.count - 1}${a.only ? `, family ${a.only}` : ''}${a.mode ? `, mode ${a.mode}` : ''}${a.fileSizeSpread > 0 ? `, file sizes ±${Math.round(a.fileSizeSpread * 100)} %` : ''}`,
    '',
    table('family', byFamily.map((g) => ({ ...g, group: isQuietFamily(g.group) ? `${g.group} (quiet)` : g.group }))),
    '',
    table('reporting mode', byMode),
    '',
    table('admission', byCap),
    '',
    table('overall', [overall]),
    '',
    'targets:',
    ...targets.flatMap((t) => [`  ${t.met ? 'met    ' : 'NOT MET'}  ${t.name}: ${t.value}`, ...(t.detail ? [`           ${t.detail}`] : [])]),
    '',
    'columns: episodes (of them sustained ≥ 10 %); recall = found inside the deadline; late = opened after it; missed = never opened;',
    'FA = openings matching no label, per 1,000 simulated query-hours; inc/ep = distinct lag incidents per episode (≠1: episodes without exactly one);',
    'resolve = reports from true recovery to resolution (open = still open at the end); delays from the onset report, for found episodes;',
    '600s rule = the static "time behind > 600 s" rule on the same episodes (fired/episodes); stalls = stalled incidents opened while the batch hung.',
    'modes: ' + REPORTING_MODES.map((m) => `${m} = ${MODE_DESCRIPTIONS[m]}`).join('; '),
    'admission = the cap of the draw\'s first query (in an interleaved log, the lagging one).',
    `false alarms by kind: ${Object.entries(overall.falseAlarmsByKind).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}; in must-stay-quiet families: ${Object.entries(summarize('quiet', draws.filter((d) => isQuietFamily(d.family))).falseAlarmsByKind).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}`,
    `parse errors ${overall.parseErrors}; tolerated openings (other kinds inside lag episodes; stalls while a query was down between runs, which the product judges with job runs) ${overall.tolerated}${overall.tolerated ? ` (${Object.entries(overall.alsoOpened).map(([k, n]) => `${k} ${n}`).join(', ')})` : ''}; evaluated in ${elapsedSec.toFixed(1)} s (${jobs} process${jobs > 1 ? 'es' : ''})`,
    '',
    printWorst(draws, a),
  ];
  await writeOut(out.join('\n'));
  return 0;
}
