/**
 * The real-Spark section of `npm run eval`: every trace recorded from real local Spark through the
 * real listener (test/fixtures/real-spark/, labels beside each) scored by `scoreRealTrace`.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { scoreRealTrace, type RealOpening, type RealTraceLabels, type RealTraceScore } from '../src/simulator/evaluation/index.js';

export const REAL_TRACES_DIR = 'test/fixtures/real-spark';

export function scoreRealTraces(dir: string = REAL_TRACES_DIR): RealTraceScore[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.labels.json'))
    .sort()
    .map((file) => {
      const labels = JSON.parse(readFileSync(join(dir, file), 'utf8')) as RealTraceLabels;
      const name = file.replace(/\.labels\.json$/, '');
      return scoreRealTrace(name, readFileSync(join(dir, labels.trace ?? `${name}.jsonl`), 'utf8'), labels);
    });
}

type ExpectedScore = RealTraceScore['expected'][number];

function foundText(e: ExpectedScore): string {
  if (!e.found) return 'MISSED';
  return e.found.atTick ? `found in the silence after batch ${e.found.afterBatchId}` : `found +${e.delayBatches}`;
}

/** Only for incidents whose label says by when they must resolve. */
function resolvedText(e: ExpectedScore): string {
  if (e.resolveByBatchId === undefined || !e.found) return '';
  if (e.resolvedAfterBatchId === null) return `, NOT resolved (by ${e.resolveByBatchId})`;
  return `, resolved after ${e.resolvedAfterBatchId} (by ${e.resolveByBatchId})`;
}

/** `kind@batchId`, and the query's name in a trace of several (each counts its own batches). */
function openingText(o: RealOpening, several: boolean): string {
  return `${o.kind}@${o.afterBatchId}${several && o.query !== null ? ` (${o.query})` : ''}`;
}

export function formatRealTraces(scores: RealTraceScore[]): string {
  if (scores.length === 0) return `real Spark traces: none in ${REAL_TRACES_DIR}\n`;
  const rows = scores.map((s) => [
    s.name,
    String(s.reports),
    s.expected.map((e) => `${e.kind}@${e.onsetBatchId}${e.query !== undefined ? ` (${e.query})` : ''}`).join(' ') || '(nothing)',
    s.expected.map((e) => `${foundText(e)}${resolvedText(e)}`).join(' ') || '—',
    s.falseAlarms.map((o) => openingText(o, s.queries > 1)).join(' ') || '0',
    s.allowed.map((o) => openingText(o, s.queries > 1)).join(' ') || '—',
  ]);
  const header = ['real trace', 'reports', 'expected', 'result', 'false alarms', 'allowed'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const expected = scores.flatMap((s) => s.expected);
  const found = expected.filter((e) => e.found).length;
  const alarms = scores.reduce((a, s) => a + s.falseAlarms.length, 0);
  const unparsed = scores.reduce((a, s) => a + s.parseErrors, 0);
  return [
    `real Spark traces (${REAL_TRACES_DIR}, recorded from local Spark through the real listener)`,
    line(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map(line),
    `labelled incidents ${expected.length}: found ${found}, missed ${expected.length - found}; false alarms ${alarms}; unparsed reports ${unparsed}`,
    '',
  ].join('\n');
}
