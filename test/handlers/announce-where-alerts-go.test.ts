/**
 * A mute, unmute, watch or unwatch of a stream that alerts in another channel is told there, where
 * the people who get its alerts are, not in the channel the command was typed in; the caller hears
 * privately where it was told, or plainly why a channel was not (the change stands), and nothing of
 * a private channel reaches the caller's channel. Real app, local Slack over HTTP, real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BOT, DEFAULT_USERS } from '../../src/standins/slack/index.js';
import type { WorkspaceChannel } from '../../src/standins/slack/types.js';
import { CHANNEL, DEV, MARIA, startHarness, type Harness } from './helpers/harness.js';
import { seedScenario, type SeededStream } from './helpers/seed.js';

const STREAMING = 'C0STREAMNG';
const PAYMENTS = 'G0PAYMENTS';
const OLD = 'C0OLDALRTS';
const NO_BOT = 'C0OPSNOBOT';
const BOT = DEFAULT_BOT.userId;
// Dev is only in #data-alerts; Maria is everywhere; #payments is private; the bot was never
// invited to public #ops; #old-alerts is archived.
const CHANNELS: WorkspaceChannel[] = [
  { id: CHANNEL, name: 'data-alerts', members: [MARIA, DEV, BOT] },
  { id: STREAMING, name: 'streaming', members: [MARIA, BOT] },
  { id: PAYMENTS, name: 'payments', members: [MARIA, BOT], isPrivate: true },
  { id: NO_BOT, name: 'ops', members: [MARIA] },
  { id: OLD, name: 'old-alerts', members: [MARIA, BOT], isArchived: true },
];

interface Reply {
  response_type?: string;
  text: string;
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** sensor_ingest alerts in #streaming, payments_ledger in private #payments. */
async function world(options: { scopes?: string[] } = {}): Promise<{ sensor: SeededStream; ledger: SeededStream }> {
  let nowMs = 0;
  const bots = options.scopes ? [{ ...DEFAULT_BOT, scopes: options.scopes }] : undefined;
  h = await startHarness({ now: () => nowMs, slack: { channels: CHANNELS, users: DEFAULT_USERS, ...(bots ? { bots } : {}) } });
  const sensor = await seedScenario(h.store, 'kafka-partition-bound');
  const ledger = await seedScenario(h.store, 'lag-then-scale-up', { name: 'payments_ledger' });
  nowMs = Math.max(sensor.nowMs, ledger.nowMs);
  await h.store.routing.setRoute('query', sensor.queryId, STREAMING);
  await h.store.routing.setRoute('query', ledger.queryId, PAYMENTS);
  return { sensor, ledger };
}

/** Runs a command and returns its first `count` answers through response_url. */
async function run(text: string, user: string, count = 1, channel = CHANNEL): Promise<Reply[]> {
  const outcome = await h!.slack.interactions.slashCommand({ user, channel, text });
  expect(outcome.delivery.status).toBe(200);
  const record = await h!.until(() => h!.slack.responses().find((r) => r.url === outcome.responseUrl && r.responses.length >= count));
  return record.responses as unknown as Reply[];
}

/** Top-level messages of a channel, as one string. */
const posted = (channel: string) => JSON.stringify(h!.slack.messages(channel));

describe('a change to another channel’s stream is told where its alerts go', () => {
  it('mute and unmute from #data-alerts are announced in #streaming; the caller hears privately where', async () => {
    const { sensor } = await world();
    const [muted, ...more] = await run(`mute ${sensor.name} <#${STREAMING}|streaming> 2h`, MARIA);
    expect(muted!.response_type).toBe('ephemeral');
    expect(muted!.text).toContain(`Silenced \`${sensor.name}\` for 2h`);
    expect(muted!.text).toContain(`Announced in <#${STREAMING}>.`);
    expect(more).toEqual([]);
    expect(await h!.store.silences.isSilenced(sensor.queryId)).toBe(true);
    const announced = await h!.until(() => h!.slack.messages(STREAMING).find((m) => m.text.includes('Silenced')));
    expect(announced.text).toContain(`<@${MARIA}>: 🔕 Silenced \`${sensor.name}\` for 2h`);
    expect(h!.slack.messages(CHANNEL)).toEqual([]);

    const [unmuted] = await run(`unmute ${sensor.name} <#${STREAMING}|streaming>`, MARIA);
    expect(unmuted!.response_type).toBe('ephemeral');
    expect(unmuted!.text).toContain(`\`${sensor.name}\` is no longer silenced`);
    expect(unmuted!.text).toContain(`Announced in <#${STREAMING}>.`);
    await h!.until(() => h!.slack.messages(STREAMING).find((m) => m.text.includes('no longer silenced')));
    expect(h!.slack.messages(CHANNEL)).toEqual([]);
  });

  it('a mute of a stream in a private channel names neither it nor the stream in the caller’s channel', async () => {
    const { ledger } = await world();
    const [muted] = await run(`mute ${ledger.name} <#${PAYMENTS}|payments> 1h`, MARIA);
    expect(muted!.response_type).toBe('ephemeral');
    expect(muted!.text).toContain(`Announced in <#${PAYMENTS}>.`);
    await h!.until(() => h!.slack.messages(PAYMENTS).find((m) => m.text.includes(`Silenced \`${ledger.name}\``)));
    expect(posted(CHANNEL)).not.toContain(ledger.name);
    expect(posted(CHANNEL)).not.toContain(PAYMENTS);
  });

  it('when the bot cannot post there, the mute stands and the caller is told that channel was not told, and why', async () => {
    // Installed without chat:write.public, so the bot posts only where it was invited.
    const { sensor } = await world({ scopes: ['commands', 'chat:write', 'channels:read', 'groups:read', 'channels:history', 'groups:history', 'channels:join', 'files:write', 'files:read'] });
    await h!.store.routing.setRoute('query', sensor.queryId, NO_BOT);
    const [muted] = await run(`mute ${sensor.name} <#${NO_BOT}|ops> 30m`, MARIA);
    expect(await h!.store.silences.isSilenced(sensor.queryId)).toBe(true);
    expect(muted!.response_type).toBe('ephemeral');
    expect(muted!.text).toContain(`Silenced \`${sensor.name}\` for 30m`);
    expect(muted!.text).toContain(`<#${NO_BOT}> was not told: StreamDoctor is not a member of it (\`not_in_channel\`); invite it there with \`/invite @StreamDoctor\`.`);
    expect(muted!.text).not.toContain('Announced in');
    expect(h!.slack.messages(NO_BOT)).toEqual([]);
    expect(h!.slack.messages(CHANNEL)).toEqual([]);
  });

  it('in a channel bound to the stream: an archived alert channel is said to be archived, the mute stands', async () => {
    const { sensor } = await world();
    await h!.store.routing.setRoute('query', sensor.queryId, OLD);
    await h!.store.routing.bindChannel(CHANNEL, sensor.queryId);
    const [muted] = await run('mute 1h', MARIA);
    expect(await h!.store.silences.isSilenced(sensor.queryId)).toBe(true);
    expect(muted!.response_type).toBe('ephemeral');
    expect(muted!.text).toContain(`<#${OLD}> was not told: it is archived (\`is_archived\`).`);
    expect(h!.slack.messages(OLD)).toEqual([]);
  });

  it('in a channel bound to the stream: a private alert channel the caller is not in is told, and not named to them', async () => {
    const { ledger } = await world();
    await h!.store.routing.bindChannel(CHANNEL, ledger.queryId);
    const [muted] = await run('mute 1h', DEV);
    expect(muted!.response_type).toBe('ephemeral');
    expect(muted!.text).toContain('Announced in the channel its alerts go to.');
    expect(JSON.stringify(muted)).not.toMatch(/payments\b|G0PAYMENTS/);
    await h!.until(() => h!.slack.messages(PAYMENTS).find((m) => m.text.includes(`<@${DEV}>: 🔕 Silenced`)));
    expect(h!.slack.messages(CHANNEL)).toEqual([]);
  });

  it('watch here of #streaming’s stream is told here and in #streaming, which loses its alerts', async () => {
    const { sensor } = await world();
    const [here, where] = await run(`watch ${sensor.name}`, MARIA, 2);
    expect(here!.response_type).toBe('in_channel');
    expect(here!.text).toContain(`routed alerts for query \`${sensor.name}\` to <#${CHANNEL}>.`);
    expect(where!.response_type ?? 'ephemeral').toBe('ephemeral');
    expect(where!.text).toBe(`Also announced in <#${STREAMING}>.`);
    const told = await h!.until(() => h!.slack.messages(STREAMING).find((m) => m.text.includes('routed alerts')));
    expect(told.text).toContain(`<@${MARIA}> routed alerts for query \`${sensor.name}\` to <#${CHANNEL}>.`);
  });

  it('watch and unwatch of a private channel’s stream from elsewhere are told in the channels it concerns, none of it here', async () => {
    const { ledger } = await world();
    const [moved] = await run(`watch ${ledger.name} <#${STREAMING}|streaming>`, MARIA);
    expect(moved!.response_type).toBe('ephemeral');
    expect(moved!.text).toContain(`routed alerts for query \`${ledger.name}\` to <#${STREAMING}>.`);
    expect(moved!.text).toContain(`Announced in <#${STREAMING}> and <#${PAYMENTS}>.`);
    expect(await h!.store.routing.resolve(ledger)).toBe(STREAMING);
    await h!.until(() => h!.slack.messages(STREAMING).find((m) => m.text.includes(ledger.name)));
    await h!.until(() => h!.slack.messages(PAYMENTS).find((m) => m.text.includes(`to <#${STREAMING}>`)));

    await h!.store.routing.setRoute('query', ledger.queryId, PAYMENTS);
    const [removed] = await run(`unwatch ${ledger.name}`, MARIA);
    expect(removed!.response_type).toBe('ephemeral');
    expect(removed!.text).toContain(`stopped routing query \`${ledger.name}\` to <#${PAYMENTS}>`);
    expect(removed!.text).toContain(`Announced in <#${PAYMENTS}>.`);
    await h!.until(() => h!.slack.messages(PAYMENTS).find((m) => m.text.includes('stopped routing')));
    expect(posted(CHANNEL)).not.toContain(ledger.name);
    expect(posted(CHANNEL)).not.toContain(PAYMENTS);
  });
});
