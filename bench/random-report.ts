/**
 * Text rendering of `npm run eval -- --random`: the summary tables, and the worst draws with the
 * seeds to replay them.
 */

import { alarmOpeningText, percentDown, type DrawScore, type GroupSummary, type Spread } from '../src/simulator/evaluation/index.js';
import { FAMILIES } from '../src/simulator/random/index.js';

/** What the worst-draws list needs of the run's flags. */
export interface WorstOptions {
  worst: number;
  only?: string;
  mode?: string;
}

const f1 = (x: number | null) => (x === null ? '—' : Number.isInteger(x) ? String(x) : x.toFixed(1));
const spreadText = (s: Spread) => (s.n === 0 ? '—' : `${f1(s.p50)}/${f1(s.p95)}/${f1(s.max)}`);
// Rounded down as the targets are, so the table and the targets below it agree.
const pctText = (a: number, b: number) => (b === 0 ? '—' : `${percentDown(a / b)}%`);

export function table(title: string, groups: GroupSummary[]): string {
  const header = [
    title,
    'draws',
    'q-hours',
    'episodes',
    'recall',
    '≥10% recall',
    'late',
    'missed',
    'FA/1000h (n)',
    'inc/ep',
    '≠1',
    'resolve p50/p95 (open)',
    'delay # p50/p95/max',
    'delay min p50/p95/max',
    '600s rule # p50/p95/max',
    '600s min p50/p95/max',
    'stalls',
  ];
  const rows = groups.map((g) => [
    g.group,
    String(g.draws),
    g.queryHours.toFixed(0),
    g.episodes ? `${g.episodes} (${g.strictEpisodes})` : '0',
    pctText(g.found, g.episodes),
    pctText(g.strictFound, g.strictEpisodes),
    String(g.late),
    String(g.missed),
    `${g.falseAlarmsPer1000h.toFixed(1)} (${g.falseAlarms})`,
    g.incidentsPerEpisode === null ? '—' : g.incidentsPerEpisode.toFixed(2),
    String(g.notExactlyOne),
    g.resolution.n || g.unresolved ? `${f1(g.resolution.p50)}/${f1(g.resolution.p95)} (${g.unresolved})` : '—',
    spreadText(g.delayReports),
    spreadText(g.delayMin),
    g.episodes ? `${spreadText(g.staticReports)} ${g.staticFired}/${g.episodes}` : '—',
    spreadText(g.staticMin),
    g.stalls ? `${g.stallsFound}/${g.stalls}` : '—',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

interface Worst {
  family: string;
  problem: string;
  seed: number;
  mode: string;
  detail: string;
  weight: number;
}

function worstDraws(draws: DrawScore[]): Worst[] {
  const out: Worst[] = [];
  for (const d of draws) {
    const q = (i: number) => {
      const x = d.queries[i]!;
      const trigger = x.triggerMs === 0 ? 'back-to-back' : `trigger ${x.triggerMs / 1_000}s`;
      const tag = ` [${trigger}${x.units !== null ? `, ${x.units} partitions/shards` : ''}${x.capped ? ', capped' : ''}]`;
      return d.queries.length > 1 ? ` q${i} ${x.family}${tag}` : tag;
    };
    for (const e of d.episodes) {
      const l = e.label;
      const what = `${l.what}${q(e.query)}, overload ${(l.overload * 100).toFixed(0)} %, onset #${l.onsetIndex}, deadline #${l.deadlineIndex}`;
      if (e.incidents === 0) out.push({ family: d.family, problem: 'missed', seed: d.seed, mode: d.mode, detail: what, weight: l.overload + 10 });
      else if (e.late) {
        out.push({ family: d.family, problem: 'late', seed: d.seed, mode: d.mode, detail: `${what}, opened at +${e.delayReports} (${f1(e.delayMin)} min)`, weight: e.delayReports ?? 0 });
      }
      if (e.incidents > 1) out.push({ family: d.family, problem: 'flapping', seed: d.seed, mode: d.mode, detail: `${what}, ${e.incidents} incidents`, weight: e.incidents });
      if (e.unresolved) out.push({ family: d.family, problem: 'unresolved', seed: d.seed, mode: d.mode, detail: `${what}, recovered at #${l.recoveryIndex}, still open`, weight: 1 });
    }
    for (const s of d.stalls) {
      if (!s.found) out.push({ family: d.family, problem: 'stall missed', seed: d.seed, mode: d.mode, detail: `stall at #${s.label.index}${q(s.query)}`, weight: 1 });
    }
    if (d.falseAlarms.length > 0) {
      const first = d.falseAlarms[0]!;
      out.push({
        family: d.family,
        problem: 'false alarm',
        seed: d.seed,
        mode: d.mode,
        detail: `${d.falseAlarms.map((a) => `${a.kind}@#${a.index}${d.queries.length > 1 ? q(a.query) : ''}`).join(' ')}${d.queries.length > 1 ? '' : q(0)} — ${alarmOpeningText(first).slice(0, 110)}`,
        weight: d.falseAlarms.length,
      });
    }
  }
  return out;
}

export function printWorst(draws: DrawScore[], a: WorstOptions): string {
  if (a.worst === 0) return '';
  const worst = worstDraws(draws);
  if (worst.length === 0) return 'worst draws: none (nothing missed, late, flapping or falsely raised)\n';
  const lines = [`worst draws (up to ${a.worst} per family and problem):`];
  for (const family of FAMILIES) {
    const mine = worst.filter((w) => w.family === family);
    if (mine.length === 0) continue;
    lines.push(`  ${family}`);
    for (const problem of ['missed', 'late', 'flapping', 'unresolved', 'stall missed', 'false alarm']) {
      const list = mine.filter((w) => w.problem === problem).sort((x, y) => y.weight - x.weight).slice(0, a.worst);
      for (const w of list) lines.push(`    ${problem.padEnd(12)} seed ${w.seed} ${w.mode}: ${w.detail}`);
    }
  }
  const forced = `${a.only ? ` --only ${a.only}` : ''}${a.mode ? ` --mode ${a.mode}` : ''}`;
  lines.push(
    `replay one: npm run eval -- --random 1 --seed-base SEED${forced} --dump /tmp/sd && npx streamdoctor diagnose /tmp/sd/SEED.jsonl`,
    '(labels with report indices, batchIds and times are in /tmp/sd/SEED.labels.json)',
  );
  return `${lines.join('\n')}\n`;
}

