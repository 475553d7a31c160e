/**
 * `npm run eval:diff -- BEFORE.json AFTER.json`: two scorings of the same random draws (each from
 * `npm run -s eval -- --random N --seed-base B --json > FILE`, one per build of the engine) side by
 * side: the issue's targets and totals of each, then every draw where a lag episode or a false alarm
 * moved. Judge a detection change on what moved, on seeds nobody tuned on.
 */

import { readFileSync } from 'node:fs';

import { DrawMismatchError, alarmOpeningText, compareDraws, judgeTargets, summarize, type DrawMove, type DrawScore, type EpisodeOutcome, type Spread } from '../src/simulator/evaluation/index.js';

const MAKE = 'npm run -s eval -- --random N --seed-base B --json > FILE';
const USAGE = `usage: npm run eval:diff -- BEFORE.json AFTER.json (each from ${MAKE})`;

/** A draw as the eval writes it, enough for the pairing (the rest is read as it is). */
function isDraw(value: unknown): value is DrawScore {
  const d = value as Partial<DrawScore> | null;
  return typeof d === 'object' && d !== null && typeof d.seed === 'number' && typeof d.family === 'string' && Array.isArray(d.episodes) && Array.isArray(d.falseAlarms);
}

function load(file: string): DrawScore[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  // `npm run` without -s prints its "> streamdoctor@… eval" banner before the JSON.
  const start = text.indexOf('{');
  let value: unknown;
  try {
    value = JSON.parse(start > 0 ? text.slice(start) : text);
  } catch {
    throw new Error(`${file} is not JSON: write it with ${MAKE.replace('FILE', file)}`);
  }
  const draws = (value as { draws?: unknown } | null)?.draws;
  if (!Array.isArray(draws)) throw new Error(`${file} has no "draws": it is not what ${MAKE} writes`);
  const bad = draws.findIndex((d) => !isDraw(d));
  if (bad >= 0) throw new Error(`${file}: draw ${bad} lacks a seed, family, episodes or falseAlarms: it is not what ${MAKE} writes`);
  return draws;
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
  for (const a of move.alarmsGone) lines.push(`    false alarm gone: q${a.query} ${a.kind}@#${a.index} ${alarmOpeningText(a).slice(0, 100)}`);
  for (const a of move.alarmsNew) lines.push(`    false alarm new:  q${a.query} ${a.kind}@#${a.index} ${alarmOpeningText(a).slice(0, 100)}`);
  return lines;
}

function main(argv: string[]): number {
  const files = argv.filter((a) => !a.startsWith('--'));
  if (files.length !== 2 || files.length !== argv.length) {
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
    const mismatch = error instanceof DrawMismatchError;
    process.stderr.write(`eval:diff: ${mismatch ? 'not the same draws: ' : ''}${(error as Error).message}${mismatch ? `; ${error.fix}` : ''}\n`);
    return 2;
  }
  // Both sides judged by this build's summary code, not the figures stored in each file: the same
  // yardstick for both (a file from an older build may lack fields a newer summary reads).
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
