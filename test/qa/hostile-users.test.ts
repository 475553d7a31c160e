/**
 * Adversarial QA, people side: a hostile but realistic user types odd `/stream` text, pastes junk into
 * `diagnose`, routes to channels that do not exist, double-clicks and tampers with buttons. The app
 * runs for real (Bolt HTTP receiver on loopback, local Slack, real Redis with a unique prefix); every
 * answer must be private, escaped, and leave the store as it was unless the command was valid.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import type { IncidentRecord } from '../../src/store/types.js';
import { CHANNEL, DEV, MARIA, startHarness, type Harness } from '../handlers/helpers/harness.js';
import { postAlert, seedScenario, type SeededStream } from '../handlers/helpers/seed.js';

const SAM = 'U0SAM00003';
/** Query name with everything that could break mrkdwn: mentions, a link, formatting, entities. */
const HOSTILE_NAME = 'sensor <!channel> <@U0DEV00002> <http://evil|click> *bold* `tick` & > _i_';
/** A run page URL with characters Slack rejects in a button URL. */
const HOSTILE_RUN_URL = 'https://adb-1234567890123456.7.azuredatabricks.net/jobs/1/runs/2?x=<!channel>&y="q"';

let h: Harness;
let orders: SeededStream;
let ordersIngest: SeededStream;
let hostile: SeededStream;
let nowMs = 0;

interface Answer {
  response_type?: string;
  text: string;
  blocks?: unknown[];
}

/** Sends a command as Slack does and returns the app's first answer through response_url. */
async function run(commandText: string, user = MARIA): Promise<Answer> {
  const outcome = await h.slack.interactions.slashCommand({ user, channel: CHANNEL, text: commandText });
  expect(outcome.delivery.status).toBe(200);
  expect(outcome.delivery.durationMs).toBeLessThan(3000);
  const record = await h.until(() => h.slack.responses().find((r) => r.url === outcome.responseUrl && r.responses.length > 0), 8000);
  return record.responses[0] as unknown as Answer;
}

/** Mentions, broadcasts and links that would be live in mrkdwn (plain_text is never parsed, so it is left out). */
function liveMarkup(message: unknown): string[] {
  const json = JSON.stringify(message).replace(/"type":"plain_text","text":"(?:[^"\\]|\\.)*"/g, '');
  return json.match(/<!channel>|<!here>|<@U0DEV00002>|<http:\/\/evil\|click>/g) ?? [];
}

beforeAll(async () => {
  h = await startHarness({ now: () => nowMs });
  orders = await seedScenario(h.store, 'kafka-uncapped-overload-12pct');
  ordersIngest = await seedScenario(h.store, 'healthy-steady');
  hostile = await seedScenario(h.store, 'kafka-partition-bound', { name: HOSTILE_NAME, runPageUrl: HOSTILE_RUN_URL });
  nowMs = Math.max(orders.nowMs, ordersIngest.nowMs, hostile.nowMs);
  await h.store.routing.setRoute('query', orders.queryId, CHANNEL);
  await h.store.routing.setRoute('query', hostile.queryId, CHANNEL);
}, 30_000);

afterAll(async () => {
  await h?.close();
});

describe('odd command text gets a short private answer and changes nothing', () => {
  it('empty, spaces, unknown words, unicode and 4,000 characters', async () => {
    const topLevel = h.slack.messages(CHANNEL).length;
    for (const text of ['', '   ', '\u00a0\u00a0']) expect((await run(text)).text).toContain('/stream commands: status, tune, diagnose');
    expect((await run('frobnicate <!channel>')).text).toContain('`frobnicate` is not a /stream command');
    const unicode = await run('ステータス 🚀 ünïcödé');
    expect(unicode.response_type).toBe('ephemeral');
    expect(unicode.text).toContain('`ステータス` is not a /stream command');
    const long = await run(`status ${'x'.repeat(4000)}`);
    expect(long.response_type).toBe('ephemeral');
    expect(long.text).toContain('No stream called');
    // The echo is cut to Block Kit's 3,000 characters per section instead of failing the reply.
    for (const block of (long.blocks ?? []) as { text?: { text: string } }[]) expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(3000);
    expect((await run('x'.repeat(4000))).text).toContain('is not a /stream command');
    expect(h.slack.messages(CHANNEL).length).toBe(topLevel);
  });

  it('mute with a negative, unit-less, zero or absurd duration is refused and nothing is silenced', async () => {
    const cases: [string, string][] = [
      ['mute orders_5min_agg -5m', '(`-5m` is not one)'],
      ['mute orders_5min_agg 10 years', '(`years` is not one)'],
      ['mute orders_5min_agg 0s', 'the duration must be more than zero'],
      ['mute orders_5min_agg 99999999999999999999d', 'mute for at most 7d'],
      ['mute orders_5min_agg 1e309h', 'is not one'],
      ['mute orders_5min_agg', '(`orders_5min_agg` is not one)'],
    ];
    for (const [text, expected] of cases) {
      const answer = await run(text);
      expect(answer.response_type, text).toBe('ephemeral');
      expect(answer.text, text).toContain(expected);
    }
    expect(await h.store.silences.list()).toEqual([]);
  });

  it('mute, ack and tune of unknown or ambiguous streams list what exists, privately', async () => {
    const unknown = await run('mute no_such_stream 2h');
    expect(unknown.response_type).toBe('ephemeral');
    expect(unknown.text).toContain('No stream called `no_such_stream`');
    // orders_5min_agg and orders_ingest both start with "orders".
    for (const sub of ['mute orders 2h', 'ack orders', 'tune orders']) {
      const ambiguous = await run(sub);
      expect(ambiguous.response_type, sub).toBe('ephemeral');
      expect(ambiguous.text, sub).toContain('`orders` matches 2 streams; say which one');
      expect(ambiguous.text, sub).toContain('`orders_5min_agg`');
      expect(ambiguous.text, sub).toContain('`orders_ingest`');
    }
    expect((await run('ack')).text).toContain('Say which stream: `/stream ack <query>`');
    expect(await h.store.silences.list()).toEqual([]);
    expect((await h.store.incidents.listForQuery(orders.queryId)).every((record) => record.acknowledgedBy == null)).toBe(true);
  });

  it('typed mentions and links come back escaped, never live', async () => {
    for (const text of ['status &lt;!channel&gt;', 'tune <@U0DEV00002>', 'ack <http://evil|click>', 'status *bold* `tick` &amp; &gt;']) {
      const answer = await run(text);
      expect(answer.response_type, text).toBe('ephemeral');
      expect(liveMarkup(answer), text).toEqual([]);
    }
  });
});

describe('watch with a bad channel', () => {
  it('a channel the bot cannot see is refused before any route is stored', async () => {
    const before = await h.store.routing.listRoutes();
    const refused = await run('watch orders_5min_agg <#C999NOPE|nope>');
    expect(refused.response_type).toBe('ephemeral');
    expect(refused.text).toContain('cannot see <#C999NOPE> (`channel_not_found`)');
    expect(refused.text).toContain('nothing changed');
    expect(await h.store.routing.listRoutes()).toEqual(before);
    const typed = await run('watch orders_5min_agg #general');
    expect(typed.text).toContain('pick the channel from Slack\'s autocomplete');
    expect(await h.store.routing.listRoutes()).toEqual(before);
  });

  it('a real channel is routed, and told there for everyone who will get the alerts to see', async () => {
    const routed = await run('watch job 4471 <#C0STREAMNG|streaming>');
    expect(routed.response_type).toBe('ephemeral');
    expect(routed.text).toContain('routed alerts for job `4471` to <#C0STREAMNG>.');
    expect(routed.text).toContain('Announced in <#C0STREAMNG>.');
    await h.until(() => h.slack.messages('C0STREAMNG').find((m) => m.text.includes('routed alerts for job `4471` to <#C0STREAMNG>.')));
    expect((await h.store.routing.listRoutes()).some((rule) => rule.scope === 'job' && rule.id === '4471' && rule.channel === 'C0STREAMNG')).toBe(true);
  });
});

describe('diagnose with input that is not progress', () => {
  it('malformed, truncated and valid-but-not-progress JSON each say what was skipped', async () => {
    const cases: [string, string][] = [
      ['diagnose {', 'incomplete JSON value'],
      [`diagnose ${orders.jsonl.split('\n')[0]!.slice(0, 300)}`, 'incomplete JSON value'],
      ['diagnose {"hello":"world"}', 'no \\"id\\" string'],
      ['diagnose [1,2,3]', 'got a number'],
      [`diagnose ${'{"a":'.repeat(5000)}`, 'Skipped while reading'],
    ];
    for (const [text, expected] of cases) {
      const answer = await run(text);
      expect(answer.response_type, text.slice(0, 40)).toBe('ephemeral');
      const body = JSON.stringify(answer.blocks);
      expect(body, text.slice(0, 40)).toContain('No progress reports found in the pasted text');
      expect(body, text.slice(0, 40)).toContain(expected);
    }
  });

  // Slack's messages stop at 40,000 characters; this is far past that and still under the 1 MB
  // body limit once form-encoded (test/handlers/request-limits.test.ts: a larger body is a 413).
  it('a 400,000-character paste is diagnosed within the ack deadline', async () => {
    let big = orders.jsonl;
    while (big.length < 400_000) big += `\n${orders.jsonl}`;
    const answer = await run(`diagnose ${big}`);
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain('orders_5min_agg');
    expect(JSON.stringify(answer.blocks)).toMatch(/Diagnosis of [\d,]+ progress reports/);
  });
});

describe('hostile stream names and Databricks URLs', () => {
  it('the alert, status, tune, ack, mute and App Home never carry a live mention or link', async () => {
    const record = hostile.incidents[0]!;
    const { ts } = await postAlert(h.client, h.deps, record, CHANNEL);
    const alert = h.slack.messages(CHANNEL).find((m) => m.ts === ts)!;
    expect(liveMarkup({ text: alert.text, blocks: alert.blocks })).toEqual([]);
    // The button URL is percent-encoded, so Slack accepts it and it cannot smuggle markup.
    const button = JSON.stringify(alert.blocks);
    expect(button).toContain('runs/2?x=%3C!channel%3E&y=%22q%22');
    for (const text of ['status', 'status all', 'tune sensor', 'ack sensor', 'mute sensor 1h', 'unmute sensor']) {
      const answer = await run(text);
      expect(liveMarkup(answer), text).toEqual([]);
    }
    await h.slack.interactions.openHome({ user: MARIA });
    const home = await h.until(() => h.slack.homeView(MARIA));
    expect(liveMarkup(home.blocks)).toEqual([]);
    for (const message of h.slack.messages(CHANNEL)) {
      expect(liveMarkup({ text: message.text, blocks: message.blocks })).toEqual([]);
      for (const reply of h.slack.thread(CHANNEL, message.ts)) expect(liveMarkup({ text: reply.text, blocks: reply.blocks })).toEqual([]);
    }
  });
});

describe('buttons clicked twice, tampered with, or out of date', () => {
  it('three Acknowledge clicks at once (two people) record one acknowledger and one thread line', async () => {
    const record = orders.incidents.find((r) => r.state === 'open')!;
    const { ts } = await postAlert(h.client, h.deps, record, CHANNEL);
    const clicks = await Promise.all(
      [MARIA, DEV, MARIA].map((user) => h.slack.interactions.messageAction({ user, channel: CHANNEL, messageTs: ts, actionId: ACTION_IDS.acknowledge })),
    );
    for (const click of clicks) expect(click.delivery.status).toBe(200);
    const stored = await h.until(async () => (await h.store.incidents.get(record.id))?.acknowledgedBy);
    // The two losing clicks are told who won, privately.
    await h.until(() => h.slack.responses().filter((r) => r.responses.some((x) => String((x as unknown as Answer).text).includes('already acknowledged'))).length >= 2);
    await h.until(() => h.slack.thread(CHANNEL, ts).some((m) => m.text.startsWith('Acknowledged')));
    await new Promise((resolve) => setTimeout(resolve, 300)); // room for a duplicate line to show up
    expect(h.slack.thread(CHANNEL, ts).filter((m) => m.text.startsWith('Acknowledged'))).toHaveLength(1);
    expect([MARIA, DEV]).toContain(stored);
    const refusals = h.slack.responses().flatMap((r) => r.responses as unknown as Answer[]).filter((x) => x.text.includes('already acknowledged'));
    for (const refusal of refusals) expect(refusal.response_type).toBe('ephemeral');
  });

  it('a tampered value, an unknown id, a resolved incident: a private word, nothing changed, nothing posted', async () => {
    const scaled = await seedScenario(h.store, 'lag-then-scale-up');
    const resolved = scaled.incidents.find((r) => r.state === 'resolved') as IncidentRecord;
    expect(resolved).toBeDefined();
    const values = ['does-not-exist.lag.123', 'nodots', '{q:x}.lag.1', `${'x'.repeat(1990)}`, resolved.id];
    for (const value of values) {
      const posted = await h.client.chat.postMessage({
        channel: CHANNEL,
        text: 'tampered',
        blocks: [{ type: 'actions', block_id: `incident:${value.slice(0, 200)}`, elements: [{ type: 'button', action_id: ACTION_IDS.acknowledge, text: { type: 'plain_text', text: 'Acknowledge' }, value }] }],
      });
      const topLevel = h.slack.messages(CHANNEL).length;
      const outcome = await h.slack.interactions.messageAction({ user: SAM, channel: CHANNEL, messageTs: posted.ts as string, actionId: ACTION_IDS.acknowledge });
      expect(outcome.delivery.status).toBe(200);
      const reply = await h.until(() => h.slack.ephemerals(CHANNEL, SAM).find((e) => e.ts > (posted.ts as string) && /gone|already resolved/.test(e.text)));
      expect(reply.text, value.slice(0, 30)).toMatch(value === resolved.id ? /already resolved/ : /incident is gone/);
      expect(h.slack.messages(CHANNEL).length).toBe(topLevel);
    }
    expect((await h.store.incidents.get(resolved.id))?.acknowledgedBy ?? null).toBeNull();
    // A Silence menu whose option value was edited is refused, not turned into some other duration.
    const menu = await h.client.chat.postMessage({
      channel: CHANNEL,
      text: 'tampered',
      blocks: [
        {
          type: 'actions',
          block_id: `incident:${orders.incidents[0]!.id}`,
          elements: [{ type: 'static_select', action_id: ACTION_IDS.silence, options: [{ text: { type: 'plain_text', text: '1 year' }, value: String(365 * 86_400_000) }] }],
        },
      ],
    });
    await h.slack.interactions.messageAction({ user: SAM, channel: CHANNEL, messageTs: menu.ts as string, actionId: ACTION_IDS.silence, selected: String(365 * 86_400_000) });
    await h.until(() => h.slack.ephemerals(CHANNEL, SAM).find((e) => e.text.includes('This menu is out of date')));
    expect(await h.store.silences.isSilenced(orders.queryId)).toBe(false);
  });
});
