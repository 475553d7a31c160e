/**
 * `npm run eval`: every labelled scenario through the real parser and engine, scored against its
 * labels, beside the static rule Databricks job health offers ("time behind > 600 s" on a 10-minute
 * average). Prints one row per labelled incident (or per must-not-fire scenario) and the totals.
 *
 *   npm run eval                 all scenarios
 *   npm run eval -- NAME [NAME]  only these scenarios
 *   npm run eval -- --json       the scores as JSON
 *   npm run eval -- --seeds N    also rerun every scenario with N−1 other seeds (labels re-resolved
 *                                from each run's truth) and print how robust the results are
 *   npm run eval -- --dump DIR   also write each scenario as DIR/NAME.jsonl (what `streamdoctor
 *                                diagnose` reads) and its resolved labels as DIR/NAME.labels.json
 *   npm run eval -- --random N   N randomized draws instead (flags in bench/eval-random.ts)
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { SCENARIOS, labelScenario, type Scenario } from '../src/simulator/index.js';
import { runEngine, scoreScenario, type ScenarioScore } from '../src/simulator/evaluation/index.js';
import { formatRealTraces, scoreRealTraces } from './eval-real.js';

const args = process.argv.slice(2);
if (args.includes('--random')) {
  const { runRandomEval } = await import('./eval-random.js');
  process.exit(await runRandomEval(args));
}
const asJson = args.includes('--json');
const dumpAt = args.indexOf('--dump');
const dumpDir = dumpAt >= 0 ? args[dumpAt + 1] : undefined;
if (dumpAt >= 0 && (!dumpDir || dumpDir.startsWith('--'))) {
  process.stderr.write('eval: --dump needs a directory\n');
  process.exit(2);
}
const seedsAt = args.indexOf('--seeds');
const seeds = seedsAt >= 0 ? Number(args[seedsAt + 1]) : 1;
if (!Number.isInteger(seeds) || seeds < 1 || seeds > 50) {
  process.stderr.write('eval: --seeds needs an integer from 1 to 50\n');
  process.exit(2);
}
const valueIndexes = new Set([dumpAt, seedsAt].filter((i) => i >= 0).map((i) => i + 1));
const names = args.filter((a, i) => !a.startsWith('--') && !valueIndexes.has(i));
const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
if (unknown.length > 0) {
  process.stderr.write(`eval: unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}\n`);
  process.exit(2);
}
const selected: Scenario[] = names.length > 0 ? SCENARIOS.filter((s) => names.includes(s.name)) : SCENARIOS;

const fmtSec = (sec: number | null): string => {
  if (sec === null) return '—';
  if (Math.abs(sec) < 120) return `${Math.round(sec)}s`;
  if (Math.abs(sec) < 7_200) return `${(sec / 60).toFixed(1)}m`;
  return `${(sec / 3_600).toFixed(1)}h`;
};
const fmtN = (n: number | null): string => (n === null ? '—' : String(n));

const scores: ScenarioScore[] = [];
const rows: string[][] = [];
const started = performance.now();
for (const scenario of selected) {
  const run = labelScenario(scenario);
  if (dumpDir) {
    mkdirSync(dumpDir, { recursive: true });
    writeFileSync(join(dumpDir, `${scenario.name}.jsonl`), `${run.batches.map((b) => b.json).join('\n')}\n`);
    const labels = {
      name: scenario.name,
      description: scenario.description,
      engine: scenario.engine,
      now: new Date(run.nowMs).toISOString(),
      expected: run.expected.map((e) => ({
        kind: e.kind,
        topCause: e.topCause ?? null,
        onsetIndex: e.onsetIndex,
        onsetBatchId: run.batches[e.onsetIndex]?.truth.batchId ?? null,
        onset: new Date(e.onsetMs).toISOString(),
        maxDelayReports: e.maxDelayReports,
      })),
      tolerated: scenario.tolerated ?? [],
    };
    writeFileSync(join(dumpDir, `${scenario.name}.labels.json`), `${JSON.stringify(labels, null, 2)}\n`);
  }
  const engine = runEngine(run);
  const score = scoreScenario(run, engine);
  scores.push(score);
  const fa = score.falseAlarms.map((o) => `${o.kind}@${o.index}`).join(' ') || '0';
  if (score.expectations.length === 0) {
    rows.push([scenario.name, '(must not fire)', '', '', '', '', '', '', '', fa]);
    continue;
  }
  for (const e of score.expectations) {
    const ratio =
      e.delaySec !== null && e.staticDelaySec !== null && e.delaySec > 0 ? `${(e.staticDelaySec / e.delaySec).toFixed(1)}×` : e.expected.kind === 'lag' && e.delaySec !== null && e.staticIndex === null ? 'never fires' : '—';
    rows.push([
      scenario.name,
      `${e.expected.kind}/${e.expected.topCause ?? '-'}`,
      `${e.expected.onsetIndex}`,
      e.found ? 'found' : 'MISSED',
      e.found ? (e.causeCorrect ? 'ok' : `got ${e.found.topCause ?? 'none'}`) : '',
      fmtN(e.delayReports),
      fmtSec(e.delaySec),
      e.expected.kind === 'lag' ? fmtN(e.staticDelayReports) + ' / ' + fmtSec(e.staticDelaySec) : '',
      ratio,
      fa,
    ]);
  }
}
const elapsedMs = performance.now() - started;

if (asJson) {
  process.stdout.write(`${JSON.stringify(scores, null, 2)}\n`);
} else {
  const header = ['scenario', 'label', 'onset', 'result', 'top cause', 'delay#', 'delay', '600s rule #/time', 'gain', 'false alarms'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  process.stdout.write(`${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const r of rows) process.stdout.write(`${line(r)}\n`);

  const all = scores.flatMap((s) => s.expectations);
  const found = all.filter((e) => e.found);
  const causeOk = all.filter((e) => e.causeCorrect);
  const falseAlarms = scores.reduce((a, s) => a + s.falseAlarms.length, 0);
  const tolerated = scores.reduce((a, s) => a + s.tolerated.length, 0);
  const parseErrors = scores.reduce((a, s) => a + s.parseErrors, 0);
  const lag = found.filter((e) => e.expected.kind === 'lag');
  const median = (xs: number[]) => {
    if (xs.length === 0) return null;
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const ratios = lag
    .filter((e) => e.staticDelaySec !== null && e.delaySec !== null && e.delaySec > 0)
    .map((e) => e.staticDelaySec! / e.delaySec!);
  const staticNever = lag.filter((e) => e.staticIndex === null).length;
  const mustNotFire = scores.filter((s) => s.expectations.length === 0);
  process.stdout.write(
    [
      '',
      `scenarios ${scores.length} (${mustNotFire.length} must-not-fire, ${mustNotFire.filter((s) => s.falseAlarms.length === 0).length} quiet)`,
      `labelled incidents ${all.length}: found ${found.length}, missed ${all.length - found.length}, right top cause ${causeOk.length}`,
      `false alarms ${falseAlarms}${tolerated ? ` (+${tolerated} tolerated)` : ''}; unparsed reports ${parseErrors}`,
      `lag detection delay: median ${fmtN(median(lag.map((e) => e.delayReports!)))} reports / ${fmtSec(median(lag.map((e) => e.delaySec!)))}; max ${fmtN(lag.length ? Math.max(...lag.map((e) => e.delayReports!)) : null)} reports`,
      `static 600 s rule on the same lag incidents: fires on ${lag.length - staticNever}/${lag.length}, median delay ${fmtSec(median(lag.filter((e) => e.staticDelaySec !== null).map((e) => e.staticDelaySec!)))}; engine sooner by median ${ratios.length ? `${median(ratios)!.toFixed(1)}×` : '—'} (min ${ratios.length ? `${Math.min(...ratios).toFixed(1)}×` : '—'}) where both fire`,
      `evaluated in ${(elapsedMs / 1_000).toFixed(1)} s`,
      '',
    ].join('\n'),
  );
  if (names.length === 0) process.stdout.write(formatRealTraces(scoreRealTraces()));
}

if (seeds > 1 && !asJson) {
  // The same scenarios under other seeds: the labels move with each run's truth, the engine must follow.
  const robustness: string[][] = [];
  let labelled = 0;
  let found = 0;
  let causes = 0;
  let alarms = 0;
  for (const scenario of selected) {
    let l = 0;
    let f = 0;
    let c = 0;
    let a = 0;
    for (let k = 1; k < seeds; k++) {
      const run = labelScenario({ ...scenario, seed: scenario.seed + 7_919 * k });
      const score = scoreScenario(run, runEngine(run));
      l += score.expectations.length;
      f += score.expectations.filter((e) => e.found).length;
      c += score.expectations.filter((e) => e.causeCorrect).length;
      a += score.falseAlarms.length;
    }
    labelled += l;
    found += f;
    causes += c;
    alarms += a;
    robustness.push([scenario.name, String(seeds - 1), l ? `${f}/${l}` : '—', l ? `${c}/${l}` : '—', String(a)]);
  }
  const header = ['scenario', 'other seeds', 'found', 'right cause', 'false alarms'];
  const widths = header.map((h, i) => Math.max(h.length, ...robustness.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  process.stdout.write(`robustness over ${seeds - 1} other seeds per scenario\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const r of robustness) process.stdout.write(`${line(r)}\n`);
  process.stdout.write(`total: found ${found}/${labelled}, right cause ${causes}/${labelled}, false alarms ${alarms}\n`);
}
