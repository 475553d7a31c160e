import { describe, expect, it } from 'vitest';
import { codeBlock, escapeMrkdwn, inlineCode, mrkdwnLink, userMention } from '../../src/slack/mrkdwn.js';
import { SLACK_LIMITS, capBlocks, linesToSections, sectionBlock, truncate } from '../../src/slack/limits.js';

describe('escapeMrkdwn', () => {
  it('escapes the three characters Slack interprets', () => {
    expect(escapeMrkdwn('<!channel> a & b > c')).toBe('&lt;!channel&gt; a &amp; b &gt; c');
    expect(escapeMrkdwn(null)).toBe('');
    expect(escapeMrkdwn(42)).toBe('42');
  });

  it('keeps code spans closed and single-line whatever the input', () => {
    expect(inlineCode('KafkaV2[Subscribe[`orders`]]')).toBe('`KafkaV2[Subscribe[ˋordersˋ]]`');
    expect(inlineCode('a\n  b')).toBe('`a b`');
    expect(codeBlock('x```y')).toBe('```xˋˋˋy```');
  });

  it('links only http(s) URLs and escapes labels', () => {
    expect(mrkdwnLink('https://adb-1.azuredatabricks.net/jobs/1/runs/2', 'run <1>')).toBe('<https://adb-1.azuredatabricks.net/jobs/1/runs/2|run &lt;1&gt;>');
    expect(mrkdwnLink('javascript:alert(1)', 'x')).toBe('x');
    expect(mrkdwnLink('https://x.example/a|b>c', 'x')).toBe('<https://x.example/a%7Cb%3Ec|x>');
  });

  it('mentions only well-formed user ids', () => {
    expect(userMention('U024BE7LH')).toBe('<@U024BE7LH>');
    expect(userMention('<!here>')).toBe('&lt;!here&gt;');
  });
});

describe('truncate', () => {
  it('never exceeds the limit and marks the cut', () => {
    const long = 'x'.repeat(5000);
    const cut = truncate(long, 3000);
    expect(cut.length).toBe(3000);
    expect(cut.endsWith('…')).toBe(true);
    expect(truncate('short', 3000)).toBe('short');
  });

  it('does not split escape entities, surrogate pairs or links', () => {
    const escaped = escapeMrkdwn('a'.repeat(8) + '<b>');
    for (let max = 5; max < escaped.length; max += 1) {
      const cut = truncate(escaped, max);
      expect(cut.length).toBeLessThanOrEqual(max);
      expect(cut).not.toMatch(/&[a-z]*…/);
    }
    expect(truncate('ab😀cd', 4)).toBe('ab…');
    const linked = truncate(`see <https://example.com/${'p'.repeat(50)}|the run> now`, 30);
    expect(linked).toBe('see…');
  });

  it('closes a code span or fence it cuts through', () => {
    const cut = truncate(`before \`${'k'.repeat(100)}\` after`, 40);
    expect(cut.length).toBeLessThanOrEqual(40);
    expect((cut.match(/`/g) ?? []).length % 2).toBe(0);
    const fence = truncate(`\`\`\`${'j'.repeat(100)}\`\`\``, 50);
    expect(fence.length).toBeLessThanOrEqual(50);
    expect(fence.endsWith('```')).toBe(true);
  });
});

describe('block helpers', () => {
  it('packs lines into ≤3000-character sections and counts what did not fit', () => {
    const lines = Array.from({ length: 400 }, (_, index) => `• stream-${index} · ${'detail '.repeat(10)}`);
    const { blocks, omitted } = linesToSections(lines, 5);
    expect(blocks.length).toBe(5);
    for (const block of blocks) expect(block.text!.text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    const shown = blocks.reduce((sum, block) => sum + block.text!.text.split('\n').length, 0);
    expect(shown + omitted).toBe(400);
    expect(omitted).toBeGreaterThan(0);
  });

  it('caps blocks with a count of what was left out', () => {
    const blocks = Array.from({ length: 70 }, (_, index) => sectionBlock(`b${index}`));
    const capped = capBlocks(blocks, 50);
    expect(capped.length).toBe(50);
    expect(JSON.stringify(capped[49])).toContain('21 more blocks not shown');
  });
});
