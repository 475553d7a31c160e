import { describe, expect, it } from 'vitest';
import { parseStreamCommand } from '../../src/slack/command-text.js';

describe('parseStreamCommand', () => {
  it('parses each subcommand', () => {
    expect(parseStreamCommand('')).toEqual({ name: 'help' });
    expect(parseStreamCommand('  help ')).toEqual({ name: 'help' });
    expect(parseStreamCommand('status')).toEqual({ name: 'status', query: null, all: false });
    expect(parseStreamCommand('status ALL')).toEqual({ name: 'status', query: null, all: true });
    expect(parseStreamCommand('status orders')).toEqual({ name: 'status', query: 'orders', all: false });
    expect(parseStreamCommand('tune "orders enrich"')).toEqual({ name: 'tune', query: 'orders enrich' });
    expect(parseStreamCommand('tune')).toEqual({ name: 'tune', query: null });
    expect(parseStreamCommand('ack orders')).toEqual({ name: 'ack', query: 'orders' });
    expect(parseStreamCommand('unmute')).toEqual({ name: 'unmute', query: null });
    expect(parseStreamCommand('digest')).toEqual({ name: 'digest' });
  });

  it('reads mute durations with or without a query', () => {
    expect(parseStreamCommand('mute orders-enrich 2h')).toEqual({ name: 'mute', query: 'orders-enrich', durationMs: 7_200_000, durationText: '2h' });
    expect(parseStreamCommand('mute 30m')).toMatchObject({ name: 'mute', query: null, durationMs: 1_800_000 });
    expect(parseStreamCommand('mute orders for 1h30m')).toMatchObject({ query: 'orders', durationMs: 5_400_000 });
    expect(parseStreamCommand('mute orders')).toMatchObject({ name: 'invalid', subcommand: 'mute', reason: expect.stringContaining('`orders` is not one') });
    expect(parseStreamCommand('mute orders 30d')).toMatchObject({ name: 'invalid', reason: expect.stringContaining('at most 7d') });
    expect(parseStreamCommand('mute')).toMatchObject({ name: 'invalid', subcommand: 'mute' });
  });

  it('reads mute durations written in words, and says exactly what to write otherwise', () => {
    expect(parseStreamCommand('mute clickstream 2 hours')).toMatchObject({ name: 'mute', query: 'clickstream', durationMs: 7_200_000, durationText: '2 hours' });
    expect(parseStreamCommand('mute clickstream for 30 minutes')).toMatchObject({ name: 'mute', query: 'clickstream', durationMs: 1_800_000 });
    expect(parseStreamCommand('mute orders enrich 1 day')).toMatchObject({ name: 'mute', query: 'orders enrich', durationMs: 86_400_000 });
    expect(parseStreamCommand('mute clickstream 1 hour 30 minutes')).toMatchObject({ name: 'mute', query: 'clickstream', durationMs: 5_400_000 });
    expect(parseStreamCommand('mute 1 hour')).toMatchObject({ name: 'mute', query: null, durationMs: 3_600_000 });
    const refused = parseStreamCommand('mute clickstream forever');
    expect(refused).toMatchObject({ name: 'invalid', reason: expect.stringContaining('2 hours') });
    expect(refused).toMatchObject({ reason: expect.stringContaining('(`forever` is not one)') });
  });

  it('refuses a mute duration without a unit (2024 is not 34 minutes), showing the forms that work', () => {
    for (const [text, bare] of [['mute orders 2024', '2024'], ['mute 2024', '2024'], ['mute orders for 90', '90'], ['mute orders 1.5', '1.5'], ['mute orders 2 hours 30', '30'], ['mute orders 0', '0']]) {
      expect(parseStreamCommand(text), text).toEqual({ name: 'invalid', subcommand: 'mute', reason: `\`${bare}\` has no unit: write 30m, 2h, 1d or 2 hours` });
    }
    // Every form with a unit still reads, a number inside the name too.
    expect(parseStreamCommand('mute orders 2024s')).toMatchObject({ name: 'mute', query: 'orders', durationMs: 2_024_000 });
    expect(parseStreamCommand('mute orders 2024 2h')).toMatchObject({ name: 'mute', query: 'orders 2024', durationMs: 7_200_000 });
    expect(parseStreamCommand('mute orders 90 minutes')).toMatchObject({ name: 'mute', query: 'orders', durationMs: 5_400_000 });
    expect(parseStreamCommand('mute orders 1.5h')).toMatchObject({ name: 'mute', query: 'orders', durationMs: 5_400_000 });
    expect(parseStreamCommand('mute orders 500ms')).toMatchObject({ name: 'mute', query: 'orders', durationMs: 500 });
    // The escaped echo: what was typed is shown in a code span, never live.
    expect(parseStreamCommand('mute orders 2024')).toMatchObject({ reason: expect.stringMatching(/^`2024`/) });
  });

  it('refuses a job id that is not a number and a pipeline id that is not a UUID, for watch', () => {
    expect(parseStreamCommand('watch job abc')).toMatchObject({ name: 'invalid', subcommand: 'watch', reason: expect.stringContaining('number') });
    expect(parseStreamCommand('watch job:abc')).toMatchObject({ name: 'invalid', subcommand: 'watch' });
    expect(parseStreamCommand('watch pipeline nightly')).toMatchObject({ name: 'invalid', subcommand: 'watch', reason: expect.stringContaining('UUID') });
    expect(parseStreamCommand('watch pipeline abcdef12-abcd-3456-7890-abcd1234ef56')).toMatchObject({ name: 'watch', target: { scope: 'pipeline' } });
    expect(parseStreamCommand('watch job 19064954')).toMatchObject({ name: 'watch', target: { scope: 'job', id: '19064954' } });
    // A route stored before the check can still be removed.
    expect(parseStreamCommand('unwatch job abc')).toMatchObject({ name: 'unwatch', target: { scope: 'job', id: 'abc' } });
  });

  it('asks for the id when `job` or `pipeline` comes without one, instead of reading it as a query name', () => {
    // As a query, `job` would prefix-match a stream whose id starts with `job-` and route that one.
    expect(parseStreamCommand('watch job')).toEqual({ name: 'invalid', subcommand: 'watch', reason: expect.stringContaining('say which job') });
    expect(parseStreamCommand('unwatch job')).toMatchObject({ name: 'invalid', subcommand: 'unwatch', reason: expect.stringContaining('say which job') });
    expect(parseStreamCommand('watch pipeline')).toMatchObject({ name: 'invalid', subcommand: 'watch', reason: expect.stringContaining('say which pipeline') });
    expect(parseStreamCommand('unwatch PIPELINE <#C0DATAALRT|data-alerts>')).toMatchObject({ name: 'invalid', reason: expect.stringContaining('say which pipeline') });
    // A name that only starts with the keyword is still a query.
    expect(parseStreamCommand('watch jobs')).toMatchObject({ name: 'watch', target: { scope: 'query', id: 'jobs' } });
  });

  it('undoes Slack escaping once for mute, as for unmute, status and ack', () => {
    // Slack sends a typed `a&lt;b` as `a&amp;lt;b`; every subcommand must read the same name.
    const typed = 'a&amp;lt;b';
    expect(parseStreamCommand(`mute ${typed} 2h`)).toMatchObject({ name: 'mute', query: 'a&lt;b' });
    expect(parseStreamCommand(`unmute ${typed}`)).toEqual({ name: 'unmute', query: 'a&lt;b' });
    expect(parseStreamCommand(`status ${typed}`)).toMatchObject({ query: 'a&lt;b' });
    expect(parseStreamCommand(`ack ${typed}`)).toEqual({ name: 'ack', query: 'a&lt;b' });
    expect(parseStreamCommand('mute R&amp;amp;D for 2 hours')).toMatchObject({ query: 'R&amp;D' });
    expect(parseStreamCommand('mute R&amp;D 2h')).toMatchObject({ query: 'R&D' });
  });

  it('cuts typed text quoted in an error reply without splitting an emoji', () => {
    const long = `${'x'.repeat(39)}😀`;
    const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    for (const text of [long, `mute orders ${long}`, `watch job ${long}`, `watch pipeline ${long}`]) {
      const command = parseStreamCommand(text);
      expect(command).toMatchObject({ name: 'invalid', reason: expect.stringContaining(`\`${'x'.repeat(39)}…\``) });
      expect(command.name === 'invalid' && command.reason).not.toMatch(loneSurrogate);
    }
    // Text within the limit is shown whole.
    expect(parseStreamCommand(`${'x'.repeat(38)}😀`)).toMatchObject({ reason: `\`${'x'.repeat(38)}😀\` is not a /stream command` });
  });

  it('reads watch targets and escaped channel links', () => {
    expect(parseStreamCommand('watch orders-enrich')).toEqual({ name: 'watch', target: { scope: 'query', id: 'orders-enrich' }, channel: null });
    expect(parseStreamCommand('watch job 812 <#C0DATAALRT|data-alerts>')).toEqual({ name: 'watch', target: { scope: 'job', id: '812' }, channel: 'C0DATAALRT' });
    expect(parseStreamCommand('watch pipeline:9a8b-7c6d <#C0DATAALRT>')).toEqual({ name: 'watch', target: { scope: 'pipeline', id: '9a8b-7c6d' }, channel: 'C0DATAALRT' });
    expect(parseStreamCommand('unwatch job:812')).toEqual({ name: 'unwatch', target: { scope: 'job', id: '812' }, channel: null });
    expect(parseStreamCommand('watch orders #data-alerts')).toMatchObject({ name: 'invalid', reason: expect.stringContaining('autocomplete') });
    expect(parseStreamCommand('watch <#C0DATAALRT|x>')).toMatchObject({ name: 'invalid', subcommand: 'watch' });
  });

  it('keeps pasted JSON for diagnose, undoing Slack escaping and smart quotes', () => {
    const command = parseStreamCommand('diagnose {\u201cid\u201d: "a", "sink": {"description": "ForeachBatchSink &amp; &lt;x&gt;"}}\n{"id": "b"}');
    expect(command).toEqual({ name: 'diagnose', input: '{"id": "a", "sink": {"description": "ForeachBatchSink & <x>"}}\n{"id": "b"}' });
  });

  it('answers anything else with an escaped reason', () => {
    expect(parseStreamCommand('<!channel> now')).toEqual({ name: 'invalid', subcommand: null, reason: '`&lt;!channel&gt;` is not a /stream command' });
  });
});
