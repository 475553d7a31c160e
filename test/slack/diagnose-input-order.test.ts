/**
 * `/stream diagnose` feeds each query's reports in Spark's order (`sparkOrder`), as the CLI reads an
 * out-of-order query again, tells what the engine still skipped per query and kind, and judges "too
 * few reports" on the reports the engine took. A newest-first export showed green "all keeping up"
 * (193 of 194 reports skipped as older) where the CLI says WARNING lag; 9 copies of one report
 * showed green "keeping up" where one copy says "not judged yet".
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../src/diagnosis/engine.js';
import { createLogger } from '../../src/observability/logger.js';
import { ProgressInputReader } from '../../src/progress/progress-input-reader.js';
import type { Progress } from '../../src/progress/types.js';
import type { SlackDeps } from '../../src/slack/deps.js';
import { diagnoseText } from '../../src/slack/operations/diagnose-input.js';
import { PermissionChecker } from '../../src/slack/permissions.js';
import { blockText } from './helpers/block-kit-limits.js';

const deps = { store: {} as SlackDeps['store'], permissions: new PermissionChecker(), logger: createLogger({ name: 'diagnose-order', level: 'silent' }) } satisfies SlackDeps;
const fixture = (name: string) => readFileSync(new URL(`../fixtures/real-spark/${name}`, import.meta.url), 'utf8');
const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

function parse(text: string): Progress[] {
  const out: Progress[] = [];
  const reader = new ProgressInputReader((record) => out.push(record.progress), () => {});
  reader.push(text);
  reader.end();
  return out;
}

describe('diagnose: reports in Spark order, skips told, judged on reports taken', () => {
  const capped = fixture('kafka-capped-overload.jsonl');

  it('a newest-first export is judged as in order (WARNING lag, as the CLI says), with nothing told as skipped', async () => {
    // What the engine says on the reports in the order Spark ran them.
    const inOrder = diagnose(parse(capped)).queries[0]!;
    expect(inOrder.health).toBe('warning');
    expect(inOrder.incidents.map((incident) => incident.kind)).toContain('lag');

    const message = await diagnoseText(`${lines(capped).reverse().join('\n')}\n`, deps, 'newest-first.jsonl');
    const text = blockText(message.blocks);
    expect(message.text).toBe('Diagnosis: kafka_capped_overload_noop is warning (1 incident)');
    expect(text).toContain('🟠 `kafka_capped_overload_noop` · warning');
    expect(text).toContain('*Falling behind* (warning, open');
    expect(text).not.toContain('🟢');
    expect(text).not.toContain('keeping up');
    expect(text).not.toContain('Skipped while reading');
  });

  it('reports shuffled across two queries come out as each in order', async () => {
    const overloaded = fixture('overloaded.jsonl');
    const a = lines(capped).reverse();
    const b = lines(overloaded).reverse();
    const mixed: string[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
      if (a[i]) mixed.push(a[i]!);
      if (b[i]) mixed.push(b[i]!);
    }
    const expected = diagnose([...parse(capped), ...parse(overloaded)]).queries.map((query) => [query.id, query.health, query.incidents.map((incident) => incident.kind)]);
    const message = await diagnoseText(mixed.join('\n'), deps, 'mixed.jsonl');
    const text = blockText(message.blocks);
    expect(text).not.toContain('Skipped while reading');
    expect(expected).toContainEqual(['23f604e0-f9b6-4f07-a1f7-f04f56c229d6', 'warning', expect.arrayContaining(['lag'])]);
    expect(text).toContain('🟠 `kafka_capped_overload_noop` · warning');
    for (const [id, health] of expected) expect(text).toMatch(new RegExp(`· ${health as string} · id \`${id as string}\``));
  });

  it('9 copies of one report: not judged yet on the 1 report taken, never green, the 8 duplicates told', async () => {
    const one = lines(fixture('overloaded.jsonl')).find((line) => line.includes('"batchId":49,'))!;
    const message = await diagnoseText(`${Array(9).fill(one).join('\n')}\n`, deps, 'copies.jsonl');
    const text = blockText(message.blocks);
    expect(text).not.toContain('🟢');
    expect(text).not.toContain('keeping up.');
    expect(text).toContain('⚪ `overloaded_slow_udf` · not judged yet');
    expect(text).toContain('No incident in 1 report, too few to tell');
    expect(text).toContain('8 reports of query `overloaded_slow_udf` (`e57326f4-10f3-4a45-bb20-9586ddc94ece`) repeated one already read and were skipped');
    expect(message.text).toContain('too few reports to tell');
  });

  it('a skipped query name is escaped: in a code span, no mention, no link', async () => {
    const one = JSON.parse(lines(fixture('overloaded.jsonl'))[10]!) as Record<string, unknown>;
    one.name = '<!channel> *boss* `x` <https://evil.example|y>';
    const copy = JSON.stringify(one);
    const message = await diagnoseText(`${copy}\n${copy}\n`, deps, '<!here>.jsonl');
    const warning = blockText(message.blocks).split('⚠️')[1]!;
    expect(warning).toContain('1 report of query `&lt;!channel&gt; *boss* ˋxˋ &lt;https://evil.example|y&gt;` (`e57326f4-10f3-4a45-bb20-9586ddc94ece`) repeated one already read and was skipped');
    expect(warning).toContain('Skipped while reading &lt;!here&gt;.jsonl');
    expect(blockText(message.blocks)).not.toMatch(/<!channel>|<!here>|<https:/);
  });

  it('reader warnings still follow the skips, escaped, capped at 5 with a count', async () => {
    const one = lines(fixture('overloaded.jsonl'))[20]!;
    const junk = Array.from({ length: 6 }, (_, i) => `{"not": "progress <${i}>"}`);
    const message = await diagnoseText([one, one, ...junk].join('\n'), deps, 'junk.jsonl');
    const warning = blockText(message.blocks).split('⚠️')[1]!;
    const bullets = warning.split('\n').filter((line) => line.startsWith('• '));
    expect(bullets).toHaveLength(5);
    expect(bullets[0]).toContain('repeated one already read and was skipped');
    expect(warning).not.toMatch(/<\d>/);
    expect(warning).toMatch(/…and \d+ more warnings? not shown/);
  });
});
