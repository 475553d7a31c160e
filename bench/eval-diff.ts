/**
 * `npm run eval:diff -- BEFORE.json AFTER.json`: two scorings of the same random draws (each from
 * `npm run eval -- --random N --seed-base B --json > FILE`, one per build of the engine) side by
 * side: the targets and totals of each, then every draw where an episode or a false alarm
 * moved. Judge a detection change on what moved, on seeds nobody tuned on.
 */

import { readFileSync } from 'node:fs';

import { DrawMismatchError, compareDraws, judgeTargets, summarize, type DrawMove, type DrawScore, type EpisodeOutcome, type Spread } from '../src/simulator/evaluation/index.js';

const USAGE = 'usage: npm run eval:diff -- BEFORE.json AFTER.json (each from npm run eval -- --random N --seed-base B --json)';

function load(file: string): DrawScore[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not JSON: write it with npm run eval -- --random N --seed-base B --json > ${file}`);
  }
  const draws = (value as { draws?: unknown } | null)?.draws;
  if (!Array.isArray(draws)) throw new Error(`${file} has no "draws": it is not the output of npm run eval -- --random N --json`);
  return draws as DrawScore[];
}

const spread = (s: Spread) => `${s.p50 ?? '—'}/${s.p95 ?? '—'}/${s.max ?? '—'}`;

function said(o: EpisodeOutcome): string {
  if (o.delayReports === null) return 'never opened';
  const when = `${o.found ? 'found' : 'late'} +${o.delayReports}`;
  return o.incidents === 1 ? when : `${when}, ${o.incidents} incidents`;
}

function describe(move: DrawMove): string[] {
  const lines = [`  seed ${move.seed} ${move.family} ${move.mode}`];
  for (const e of move.episodes) lines.push(`    q${e.query} ${e.what}${e.strict ? ' (≥ 10 %)' : ''}: ${said(e.before)} → ${said(e.after)}`);
  for (const a of move.alarmsGone) lines.push(`    false alarm gone: q${a.query} ${a.kind}@#${a.index} ${a.summary.slice(0, 100)}`);
  for (const a of move.alarmsNew) lines.push(`    false alarm new:  q${a.query} ${a.kind}@#${a.index} ${a.summary.slice(0, 100)}`);
  return lines;
}

function main(argv: string[]): number {
  const files = argv.filter((a) => !a.startsWith('--'));
  if (files.length !== 2) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  let before: DrawScore[];
  let after: DrawScore[];
  let moves: DrawMove[];
  try {
    [before, after] = [load(files[0]!), load(files[1]!)];
    moves = compareDraws(before, after);
  } catch (error) {
    const prefix = error instanceof DrawMismatchError ? 'not the same draws: ' : '';
    process.stderr.write(`eval:diff: ${prefix}${(error as Error).message}\n`);
    return 2;
  }
  const [ta, tb] = [judgeTargets(before), judgeTargets(after)];
  const [sa, sb] = [summarize('all', before), summarize('all', after)];
  const seeds = before.length > 0 ? `seeds ${before[0]!.seed}–${before[before.length - 1]!.seed}` : 'no draws';
  const width = Math.max(...ta.map((t) => t.name.length), 24);
  const rows = [
    ...ta.map((t, i) => [t.name, `${t.met ? '' : 'NOT MET '}${t.value}`, `${tb[i]!.met ? '' : 'NOT MET '}${tb[i]!.value}`]),
    ['false alarms (all kinds)', String(sa.falseAlarms), String(sb.falseAlarms)],
    ['delay # p50/p95/max', spread(sa.delayReports), spread(sb.delayReports)],
  ];
  const episodes = moves.flatMap((m) => m.episodes);
  const sooner = episodes.filter((e) => e.after.delayReports !== null && (e.before.delayReports === null || e.after.delayReports < e.before.delayReports)).length;
  const later = episodes.filter((e) => e.before.delayReports !== null && (e.after.delayReports === null || e.after.delayReports > e.before.delayReports)).length;
  const out = [
    `${before.length} draws, ${seeds}: ${files[0]} → ${files[1]}`,
    '',
    ...rows.map(([name, a, b]) => `${name!.padEnd(width)}  ${a}\n${''.padEnd(width)}  → ${b}`),
    '',
    `moved: ${episodes.length} episodes (${sooner} opened sooner, ${later} later or never, ${episodes.length - sooner - later} otherwise), ` +
      `${moves.reduce((n, m) => n + m.alarmsGone.length, 0)} false alarms gone, ${moves.reduce((n, m) => n + m.alarmsNew.length, 0)} new`,
    ...moves.flatMap(describe),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
