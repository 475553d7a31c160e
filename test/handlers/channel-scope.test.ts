/**
 * Channel scope of `/stream` commands: commands act on the streams routed to the
 * channel they are typed in; another channel's stream needs `name #channel` and the caller must be a
 * member of it (fail closed when Slack will not say); `ack` follows mute's rules and is guarded by
 * the admin policy; `status all` and `tune` hide streams routed to private channels the caller is not
 * in. Real app, local Slack over HTTP, real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BOT, DEFAULT_USERS } from '../../src/standins/slack/index.js';
import type { WorkspaceChannel } from '../../src/standins/slack/types.js';
import type { PermissionPolicy } from '../../src/slack/permissions.js';
import { CHANNEL, DEV, MARIA, startHarness, type Harness } from './helpers/harness.js';
import { postAlert, seedScenario, type SeededStream } from './helpers/seed.js';

const STREAMING = 'C0STREAMNG';
const PAYMENTS = 'G0PAYMENTS';
const SAM = 'U0SAM00003';
const BOT = DEFAULT_BOT.userId;
// Dev is only in #data-alerts; Maria is everywhere; #payments is private.
const CHANNELS: WorkspaceChannel[] = [
  { id: CHANNEL, name: 'data-alerts', members: [MARIA, DEV, SAM, BOT] },
  { id: STREAMING, name: 'streaming', members: [MARIA, SAM, BOT] },
  { id: PAYMENTS, name: 'payments', members: [MARIA, BOT], isPrivate: true },
];

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface World {
  orders: SeededStream;
  sensor: SeededStream;
  ledger: SeededStream;
}

async function world(options: { policy?: PermissionPolicy; scopes?: string[] } = {}): Promise<World> {
  let nowMs = 0;
  const bots = options.scopes ? [{ ...DEFAULT_BOT, scopes: options.scopes }] : undefined;
  h = await startHarness({ now: () => nowMs, ...(options.policy ? { policy: options.policy } : {}), slack: { channels: CHANNELS, users: DEFAULT_USERS, ...(bots ? { bots } : {}) } });
  const orders = await seedScenario(h.store, 'kafka-uncapped-overload-12pct');
  const sensor = await seedScenario(h.store, 'kafka-partition-bound');
  const ledger = await seedScenario(h.store, 'lag-then-scale-up', { name: 'payments_ledger' });
  nowMs = Math.max(orders.nowMs, sensor.nowMs, ledger.nowMs);
  await h.store.routing.setRoute('query', orders.queryId, CHANNEL);
  await h.store.routing.setRoute('query', sensor.queryId, STREAMING);
  await h.store.routing.setRoute('query', ledger.queryId, PAYMENTS);
  for (const record of sensor.incidents) await postAlert(h.client, h.deps, record, STREAMING);
  return { orders, sensor, ledger };
}

async function run(text: string, user: string, channel = CHANNEL): Promise<{ response_type?: string; text: string; blocks?: unknown[] }> {
  const outcome = await h!.slack.interactions.slashCommand({ user, channel, text });
  expect(outcome.delivery.status).toBe(200);
  const record = await h!.until(() => h!.slack.responses().find((r) => r.url === outcome.responseUrl && r.responses.length > 0));
  return record.responses[0] as { response_type?: string; text: string; blocks?: unknown[] };
}

/** Mentions, broadcasts and links that would be live in mrkdwn (plain_text is never parsed, so it is left out). */
function liveMarkup(message: unknown): string[] {
  const json = JSON.stringify(message).replace(/"type":"plain_text","text":"(?:[^"\\]|\\.)*"/g, '');
  return json.match(/<!channel>|<!here>|<@U0DEV00002>|<http:\/\/evil\|click>/g) ?? [];
}

describe('channel scope of /stream commands', () => {
  it('mute of another channel’s stream is refused with what to type; with #channel only its members may', async () => {
    const { sensor } = await world();
    const plain = await run(`mute ${sensor.name} 2h`, DEV);
    expect(plain.response_type).toBe('ephemeral');
    expect(plain.text).toContain(`\`${sensor.name}\` alerts in <#${STREAMING}>, not in this channel, so nothing changed.`);
    expect(plain.text).toContain(`/stream mute ${sensor.name} #streaming 2h`);
    const notMember = await run(`mute ${sensor.name} <#${STREAMING}|streaming> 2h`, DEV);
    expect(notMember.text).toContain(`only its members may mute it from another channel`);
    const wrongChannel = await run(`mute ${sensor.name} <#${PAYMENTS}|payments> 2h`, MARIA);
    expect(wrongChannel.text).toContain(`not in <#${PAYMENTS}>`);
    expect(await h!.store.silences.isSilenced(sensor.queryId)).toBe(false);
    const member = await run(`mute ${sensor.name} <#${STREAMING}|streaming> 2h`, MARIA);
    // Told in #streaming, where its alerts go; the caller privately.
    expect(member.response_type).toBe('ephemeral');
    expect(member.text).toContain(`Announced in <#${STREAMING}>.`);
    expect(await h!.store.silences.isSilenced(sensor.queryId)).toBe(true);
    // In its own channel no #channel is needed.
    const there = await run(`unmute ${sensor.name}`, SAM, STREAMING);
    expect(there.text).toContain('no longer silenced');
  });

  it('ack follows the same rule, and the admin policy guards it like mute', async () => {
    const { orders, sensor } = await world({ policy: { users: [MARIA, DEV] } });
    const elsewhere = await run(`ack ${sensor.name}`, DEV);
    expect(elsewhere.text).toContain(`alerts in <#${STREAMING}>, not in this channel`);
    expect((await h!.store.incidents.get(sensor.incidents[0]!.id))?.acknowledgedBy ?? null).toBeNull();
    const denied = await run(`ack ${orders.name}`, SAM);
    expect(denied.text).toContain('may ack streams here');
    const allowed = await run(`ack ${orders.name}`, DEV);
    expect(allowed.text).toContain('You acknowledged');
  });

  it('watch cannot pull another channel’s alerts unless the caller is in that channel', async () => {
    const { sensor } = await world();
    const pulled = await run(`watch ${sensor.name}`, DEV);
    expect(pulled.text).toContain(`alerts in <#${STREAMING}>, and only its members may watch it from another channel`);
    expect(await h!.store.routing.resolve(sensor)).toBe(STREAMING);
    const byMember = await run(`watch ${sensor.name}`, MARIA);
    expect(byMember.response_type).toBe('in_channel');
    expect(await h!.store.routing.resolve(sensor)).toBe(CHANNEL);
  });

  it('watch job|pipeline checks membership of every channel its streams alert in now, default and pipeline routes too', async () => {
    const { ledger } = await world();
    // payments_ledger runs in job 4242 / pipeline 0b1e6d2a-4c3f-4e5a-9b7c-1d2e3f4a5b6c with no route of its own: the private default channel gets it.
    await h!.store.streams.upsert({ queryId: ledger.queryId, name: ledger.name, jobId: '4242', pipelineId: '0b1e6d2a-4c3f-4e5a-9b7c-1d2e3f4a5b6c' });
    await h!.store.routing.removeRoute('query', ledger.queryId);
    h!.deps.routingDefaults = { defaultChannel: PAYMENTS };
    const ledgerChannel = async () => h!.store.routing.resolve((await h!.store.streams.get(ledger.queryId))!, h!.deps.routingDefaults);
    for (const text of ['watch job 4242', 'watch pipeline 0b1e6d2a-4c3f-4e5a-9b7c-1d2e3f4a5b6c']) {
      // PAYMENTS is private and DEV not in it: refused without naming it.
      const refusal = (await run(text, DEV)).text;
      expect(refusal, text).toContain('alerts in a channel you are not a member of, and only its members may watch it from another channel');
      expect(refusal, text).not.toContain(PAYMENTS);
    }
    // A pipeline route, which a job route outranks, counts as well.
    h!.deps.routingDefaults = undefined;
    await h!.store.routing.setRoute('pipeline', '0b1e6d2a-4c3f-4e5a-9b7c-1d2e3f4a5b6c', PAYMENTS);
    expect((await run('watch job 4242', DEV)).text).toContain('alerts in a channel you are not a member of, and only its members may watch it');
    expect(await ledgerChannel()).toBe(PAYMENTS);
    expect(JSON.stringify((await run('status', DEV)).blocks)).not.toContain(ledger.name);
    const byMember = await run('watch job 4242', MARIA);
    expect(byMember.response_type).toBe('in_channel');
    expect(await ledgerChannel()).toBe(CHANNEL);
  });

  it('a stream routed to a private channel the caller is not in reads exactly as a missing one', async () => {
    const { ledger } = await world();
    const paymentsOrders = await seedScenario(h!.store, 'kafka-uncapped-overload-12pct', { name: 'payments_orders' });
    await h!.store.routing.setRoute('query', paymentsOrders.queryId, CHANNEL);
    const missing = 'nosuch_stream';
    // Typo, exact name, partial name, with `tune`, `mute` and `watch`: the reply a missing name gets.
    for (const [hidden, command] of [['payments_ledgr', 'tune'], [ledger.name, 'tune'], ['ledg', 'mute'], [ledger.name, 'watch']] as const) {
      const duration = command === 'mute' ? ' 1h' : '';
      const asMissing = (await run(`${command} ${missing}${duration}`, DEV)).text;
      const reply = (await run(`${command} ${hidden}${duration}`, DEV)).text;
      expect(reply, `${command} ${hidden}`).toBe(asMissing.replace(missing, hidden));
      expect(reply).not.toContain(PAYMENTS);
    }
    // The ambiguous `payments` is one visible match for Dev, two candidates for a member of #payments.
    expect((await run('status payments', DEV)).text).toContain('payments_orders');
    expect((await run('status payments', DEV)).text).not.toContain(ledger.name);
    expect((await run('status payments', MARIA)).text).toContain(`matches 2 streams`);
    expect((await run('tune payments_ledgr', MARIA)).text).toContain(`Did you mean: • \`${ledger.name}\``);
    expect(await h!.store.routing.resolve(ledger)).toBe(PAYMENTS);
  });

  it('status all and tune hide streams routed to a private channel the caller is not in', async () => {
    const { ledger, sensor } = await world();
    const devAll = JSON.stringify((await run('status all', DEV)).blocks);
    expect(devAll).toContain(sensor.name);
    expect(devAll).not.toContain(ledger.name);
    const mariaAll = JSON.stringify((await run('status all', MARIA)).blocks);
    expect(mariaAll).toContain(ledger.name);
    const tune = await run(`tune ${ledger.name}`, DEV);
    expect(tune.text).toContain('No stream called `payments_ledger`.');
    expect((await run(`tune ${ledger.name}`, MARIA)).text).not.toContain('No stream called');
  });

  it('fails closed when the caller’s channels cannot be read', async () => {
    // Installed without groups:read: users.conversations answers missing_scope.
    const { sensor } = await world({ scopes: ['commands', 'chat:write', 'chat:write.public', 'channels:read', 'files:write', 'files:read'] });
    const reply = await run(`mute ${sensor.name} <#${STREAMING}|streaming> 2h`, MARIA);
    expect(reply.text).toContain(`could not check that you are a member of <#${STREAMING}> (\`missing_scope\`), so nothing changed`);
    expect(await h!.store.silences.isSilenced(sensor.queryId)).toBe(false);
  });

  it('the "name the channel" hint shows a hostile query name literally, backticks included', async () => {
    const { sensor } = await world();
    const hostile = 'sensor <!channel> <@U0DEV00002> <http://evil|click> `tick` & >';
    await h!.store.streams.upsert({ queryId: sensor.queryId, name: hostile });
    for (const text of ['mute sensor 1h', 'unmute sensor', 'ack sensor']) {
      const reply = await run(text, DEV);
      expect(reply.text, text).toContain(`name the channel: \`/stream ${text.split(' ')[0]} sensor &lt;!channel&gt; &lt;@U0DEV00002&gt; &lt;http://evil|click&gt; ˋtickˋ &amp; &gt; #streaming`);
      expect(liveMarkup(reply), text).toEqual([]);
    }
  });
});
