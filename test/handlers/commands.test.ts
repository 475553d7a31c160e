/**
 * `/stream` commands sent to the running app as Slack sends them (signed form posts from the local
 * Slack), against a real Redis store holding incidents the engine found in simulated streams.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncidentRecord } from '../../src/store/types.js';
import { CHANNEL, DEV, MARIA, startHarness, type Harness } from './helpers/harness.js';
import { postAlert, seedScenario, type SeededStream } from './helpers/seed.js';

const RUN_URL = 'https://adb-1234567890123456.7.azuredatabricks.net/jobs/812/runs/99120';
let h: Harness;
let orders: SeededStream;
let sensor: SeededStream;
let healthy: SeededStream;
let nowMs = 0;

function text(json: unknown): string {
  return JSON.stringify(json);
}

/** Runs a command and returns what the app answered through response_url (bounded wait). */
async function run(commandText: string, user = MARIA, channel = CHANNEL) {
  const outcome = await h.slack.interactions.slashCommand({ user, channel, text: commandText });
  expect(outcome.delivery.status).toBe(200);
  expect(outcome.delivery.durationMs).toBeLessThan(3000);
  const record = await h.until(() => h.slack.responses().find((r) => r.url === outcome.responseUrl && r.responses.length > 0));
  return record.responses[0] as { response_type?: string; text: string; blocks?: unknown[] };
}

beforeAll(async () => {
  h = await startHarness({ now: () => nowMs });
  orders = await seedScenario(h.store, 'kafka-uncapped-overload-12pct', { runPageUrl: RUN_URL });
  sensor = await seedScenario(h.store, 'kafka-partition-bound', { jobId: '4471', workspace: 'adb-1234567890123456.7.azuredatabricks.net' });
  healthy = await seedScenario(h.store, 'healthy-steady');
  nowMs = Math.max(orders.nowMs, sensor.nowMs, healthy.nowMs);
  await h.store.routing.setRoute('query', orders.queryId, CHANNEL);
  await h.store.routing.setRoute('query', sensor.queryId, CHANNEL);
  for (const record of [...orders.incidents, ...sensor.incidents]) await postAlert(h.client, h.deps, record, CHANNEL);
});

afterAll(async () => {
  await h?.close();
});

describe('/stream commands', () => {
  it('seeds real engine incidents', () => {
    expect(orders.incidents.map((r) => r.kind)).toContain('lag');
    expect(sensor.incidents.map((r) => r.kind)).toContain('lag');
    expect(healthy.incidents).toEqual([]);
  });

  it('help and odd text get a short private answer', async () => {
    const help = await run('');
    expect(help.response_type).toBe('ephemeral');
    expect(text(help.blocks)).toContain('/stream mute &lt;query&gt; [#channel] &lt;duration&gt;` silence alerts for a stream, e.g. `mute orders 2h` or `mute orders 2 hours`');
    const odd = await run('frobnicate the <!channel>');
    expect(odd.response_type).toBe('ephemeral');
    expect(odd.text).toContain('`frobnicate` is not a /stream command');
    // Slack escapes <, > and & in command text; the name comes back escaped, never as a live mention.
    const hostile = await run('tune &lt;!here&gt; orders');
    expect(hostile.text).toContain('`&lt;!here&gt; orders`');
    expect(JSON.stringify(hostile)).not.toContain('<!here>');
    const badMute = await run('mute orders_5min_agg forever');
    expect(badMute.text).toContain('(`forever` is not one). Usage: `/stream mute');
  });

  it('status lists this channel\'s streams worst first, or all, or one', async () => {
    const here = await run('status');
    const body = text(here.blocks);
    expect(body).toContain('orders_5min_agg');
    expect(body).toContain('sensor_ingest');
    expect(body).not.toContain('orders_ingest'); // not routed here
    expect(body).toContain(`<${RUN_URL}|orders_5min_agg>`);
    expect(body).toContain('https://adb-1234567890123456.7.azuredatabricks.net/jobs/4471|sensor_ingest');
    expect(body).toMatch(/🔴 \*<[^>]+\|(sensor_ingest|orders_5min_agg)>\* · \d+m( \d+s)? behind/);
    const all = await run('status all');
    expect(text(all.blocks)).toContain('orders_ingest');
    const healths = (await h.store.streams.list()).map((stream) => stream.snapshot?.health ?? stream.health);
    const critical = healths.filter((health) => health === 'critical').length;
    if (critical > 0) expect(text(all.blocks)).toContain(`🔴 ${critical} critical`);
    expect(text(all.blocks)).toContain(`🟢 ${healths.filter((health) => health === 'ok').length} ok`);
    const one = await run('status sensor');
    expect(text(one.blocks)).toContain('sensor_ingest');
    expect(text(one.blocks)).not.toContain('orders_5min_agg');
  });

  it('status also lists streams the watch file routes here by channel name', async () => {
    h.deps.routingDefaults = { queries: { [healthy.queryId]: '#data-alerts' } };
    try {
      const here = await run('status');
      expect(text(here.blocks)).toContain('orders_ingest');
    } finally {
      h.deps.routingDefaults = undefined;
    }
  });

  it('partial names match when unambiguous, otherwise the candidates are listed', async () => {
    const ambiguous = await run('tune orders');
    expect(ambiguous.text).toContain('`orders` matches 2 streams');
    expect(ambiguous.text).toContain('`orders_5min_agg`');
    expect(ambiguous.text).toContain('`orders_ingest`');
    const missing = await run('tune sensr_ingest');
    expect(missing.text).toContain('No stream called `sensr_ingest`. Did you mean');
  });

  it('tune gives the full advice with the engine\'s numbers', async () => {
    const reply = await run('tune orders_5min');
    const body = text(reply.blocks);
    const incident = orders.incidents[0]!.incident;
    expect(body).toContain('Tuning advice · orders_5min_agg');
    for (const cause of incident.causes) expect(body).toContain(cause.evidence.slice(0, 40).replace(/"/g, '\\"'));
    expect(incident.advice.length).toBeGreaterThan(0);
    expect(body).toContain(`*1.* ${incident.advice[0]!.text.slice(0, 30)}`);
    const calm = await run('tune orders_ingest');
    expect(calm.text).toContain('has had no incidents');
  });

  it('ack acknowledges the open incident and updates the alert in place', async () => {
    const reply = await run('ack sensor_ingest', DEV);
    expect(reply.text).toContain('You acknowledged the incident on `sensor_ingest`');
    const record = (await h.store.incidents.get(sensor.incidents[0]!.id)) as IncidentRecord;
    expect(record.acknowledgedBy).toBe(DEV);
    // The notify worker re-renders the alert and tells the ack in its thread.
    const alert = await h.until(() => h.slack.messages(CHANNEL).find((m) => m.ts === record.slack!.ts && text(m.blocks).includes(`Acknowledged by <@${DEV}>`)));
    expect(alert.edited).toBeDefined();
    await h.until(() => text(h.slack.thread(CHANNEL, record.slack!.ts).map((m) => m.text)).includes('Acknowledged'));
    const again = await run('ack sensor_ingest', MARIA);
    expect(again.text).toContain(`<@${DEV}> already acknowledged`);
  });

  it('mute silences a stream for the duration, says so in the channel, and unmute ends it', async () => {
    const before = h.slack.messages(CHANNEL).length;
    const reply = await run('mute orders_5min_agg 2h');
    expect(reply.response_type).toBe('in_channel');
    expect(reply.text).toContain('Silenced `orders_5min_agg` for 2h');
    // A command that works as typed anywhere, not a bare unmute.
    expect(reply.text).toContain('`/stream unmute orders_5min_agg` or Unsilence on its alert ends it early.');
    expect(await h.store.silences.isSilenced(orders.queryId)).toBe(true);
    const silence = await h.store.silences.get(orders.queryId);
    expect(silence).toMatchObject({ byUser: MARIA, untilMs: nowMs + 2 * 3_600_000 });
    const ref = (await h.store.incidents.get(orders.incidents[0]!.id))!.slack!;
    const alert = await h.until(() => h.slack.messages(CHANNEL).find((m) => m.ts === ref.ts && text(m.blocks).includes('🔕')));
    expect(text(alert.blocks)).toContain('incident_unsilence');
    expect(h.slack.messages(CHANNEL).length).toBe(before + 1); // the in-channel reply, no new alert
    const unmute = await run('unmute orders_5min_agg');
    expect(unmute.text).toContain('no longer silenced');
    expect(await h.store.silences.isSilenced(orders.queryId)).toBe(false);
    const notMuted = await run('unmute orders_5min_agg');
    expect(notMuted.response_type).toBe('ephemeral');
    expect(notMuted.text).toContain('is not silenced');
  });

  it('mute refuses a duration without a unit (2024 is not 34 minutes) and silences nothing', async () => {
    const reply = await run('mute orders_5min_agg 2024');
    expect(reply.response_type).toBe('ephemeral');
    expect(reply.text).toContain('`2024` has no unit: write 30m, 2h, 1d or 2 hours. Usage: `/stream mute');
    expect(await h.store.silences.isSilenced(orders.queryId)).toBe(false);
  });

  it('watch and unwatch change routing, to this channel or a named one', async () => {
    // No channel gets job 812's alerts yet: told in #streaming alone, the caller privately.
    const reply = await run('watch job 812 <#C0STREAMNG|streaming>');
    expect(reply.response_type).toBe('ephemeral');
    expect(reply.text).toContain('routed alerts for job `812` to <#C0STREAMNG>');
    expect(reply.text).toContain('Announced in <#C0STREAMNG>.');
    await h.until(() => h.slack.messages('C0STREAMNG').find((m) => m.text.includes('routed alerts for job `812`')));
    expect(await h.store.routing.listRoutes()).toContainEqual({ scope: 'job', id: '812', channel: 'C0STREAMNG' });
    const wrong = await run('unwatch job 812 <#C0GENERAL1|general>');
    expect(wrong.text).toContain('nothing changed');
    const healthyWatch = await run('watch orders_ingest');
    expect(healthyWatch.text).toContain('query `orders_ingest` to <#C0DATAALRT>');
    expect(await h.store.routing.resolve({ queryId: healthy.queryId })).toBe(CHANNEL);
    await run('unwatch job:812');
    await run('unwatch orders_ingest');
    expect((await h.store.routing.listRoutes()).map((r) => r.id)).not.toContain('812');
    expect(await h.store.routing.resolve({ queryId: healthy.queryId })).toBeNull();
    const none = await run('unwatch job 999');
    expect(none.text).toContain('No `watch` routes job `999`');
  });

  it('a job route says which of its streams it does not reach, and when none has reported yet', async () => {
    const own = '5150aaaa-0000-4000-8000-000000000001';
    await h.store.streams.upsert({ queryId: own, name: 'ledger_job_stream', jobId: '5150' });
    await h.store.routing.setRoute('query', own, CHANNEL);
    try {
      const kept = await run('watch job 5150 <#C0STREAMNG|streaming>');
      expect(kept.text).toContain('routed alerts for job `5150` to <#C0STREAMNG>. `ledger_job_stream` keeps its own route, which comes first: `/stream watch <query>` moves it.');
      const none = await run('watch job 6160 <#C0STREAMNG|streaming>');
      expect(none.text).toContain('No stream of this job has reported yet: its streams alert in <#C0STREAMNG> once they do.');
    } finally {
      await h.store.routing.removeRoute('job', '5150');
      await h.store.routing.removeRoute('job', '6160');
      await h.store.routing.removeRoute('query', own);
    }
  });

  it('an unknown stream name is repeated cut short and without control characters', async () => {
    const reply = await run(`tune ${'q'.repeat(5_000)}\u0007\u202e`);
    expect(reply.response_type).toBe('ephemeral');
    expect(reply.text.length).toBeLessThan(300);
    expect(reply.text).toContain('status all` lists the streams you can see');
    const odd = await run('tune ab\u0007\u202ecd');
    expect(odd.text).toContain('`ab\uFFFD\uFFFDcd`');
  });

  it('a watch of a stream the watch file already routes here is answered privately and stores no route', async () => {
    h.deps.routingDefaults = { queries: { [healthy.queryId]: CHANNEL } };
    try {
      const reply = await run('watch orders_ingest');
      expect(reply.response_type).toBe('ephemeral');
      expect(reply.text).toBe(`query \`orders_ingest\` is already routed to <#${CHANNEL}> by the watch file; nothing changed.`);
      expect((await h.store.routing.listRoutes()).map((r) => r.id)).not.toContain(healthy.queryId);
    } finally {
      h.deps.routingDefaults = undefined;
    }
  });

  it('watch refuses a malformed job id privately, and a watch that changes nothing is answered privately', async () => {
    const bad = await run('watch job abc');
    expect(bad.response_type).toBe('ephemeral');
    expect(bad.text).toContain("a job id is the number in the job's URL");
    expect((await h.store.routing.listRoutes()).map((r) => r.id)).not.toContain('abc');
    const first = await run('watch job 4471');
    expect(first.response_type).toBe('in_channel');
    const again = await run('watch job 4471');
    expect(again.response_type).toBe('ephemeral');
    expect(again.text).toBe('job `4471` is already routed to <#C0DATAALRT>; nothing changed.');
    await run('unwatch job 4471');
  });

  it('in a channel bound to one incident the query can be left out', async () => {
    const unbound = await run('tune', MARIA, 'C0STREAMNG');
    expect(unbound.text).toContain('Say which stream');
    await h.store.routing.bindChannel('C0STREAMNG', sensor.queryId);
    const bound = await run('tune', MARIA, 'C0STREAMNG');
    expect(text(bound.blocks)).toContain('Tuning advice · sensor_ingest');
    const status = await run('status', MARIA, 'C0STREAMNG');
    expect(text(status.blocks)).toContain('sensor_ingest');
  });

  it('diagnose runs the engine on pasted progress JSON', async () => {
    const pasted = orders.jsonl.split('\n').slice(0, 90).join('\n');
    const reply = await run(`diagnose ${pasted}`);
    const body = text(reply.blocks);
    expect(body).toContain('Diagnosis of 90 progress reports');
    expect(body).toContain('orders_5min_agg');
    expect(body).toMatch(/Falling behind\* \((warning|critical), open, from batch \d+\)/);
    expect(body).toContain('_Why:_ Not enough processing capacity');
    expect(reply.text).toMatch(/orders_5min_agg is (warning|critical) \(1 incident\)/);
    const junk = await run('diagnose {"not": "progress"}\nnot json at all');
    expect(text(junk.blocks)).toContain('No progress reports found');
    expect(text(junk.blocks)).toContain('Skipped while reading');
  });

  it('diagnose reads the last file shared in the channel', async () => {
    const none = await run('diagnose', MARIA, 'C0GENERAL1');
    expect(none.text).toContain('share a `.json`/`.jsonl` file');
    const shared = await h.slack.interactions.shareFile({ user: MARIA, channel: 'C0GENERAL1', name: 'sensor-progress.jsonl', bytes: Buffer.from(sensor.jsonl) });
    expect(shared.delivery.status).toBe(200);
    await h.until(async () => (await h.redis.keys(`${h.store.keys.prefix}:slack:last-file:C0GENERAL1`)).length === 1);
    const reply = await run('diagnose', MARIA, 'C0GENERAL1');
    expect(text(reply.blocks)).toContain(`Diagnosis of ${sensor.progress.length} progress reports`);
    expect(text(reply.blocks)).toContain('sensor_ingest');
  });

  it('mute, unmute, watch and unwatch honour the permission policy', async () => {
    const restricted = await startHarness({ policy: { users: [MARIA] }, now: () => nowMs });
    try {
      const stream = await seedScenario(restricted.store, 'healthy-steady');
      const deny = await restricted.slack.interactions.slashCommand({ user: DEV, channel: CHANNEL, text: `mute ${stream.name} 30m` });
      const denied = await restricted.until(() => restricted.slack.responses().find((r) => r.url === deny.responseUrl && r.responses.length > 0));
      expect((denied.responses[0] as { text: string }).text).toContain(`Only <@${MARIA}> may mute`);
      expect(await restricted.store.silences.isSilenced(stream.queryId)).toBe(false);
      const allow = await restricted.slack.interactions.slashCommand({ user: MARIA, channel: CHANNEL, text: `mute ${stream.name} 30m` });
      await restricted.until(() => restricted.slack.responses().find((r) => r.url === allow.responseUrl && r.responses.length > 0));
      expect(await restricted.store.silences.isSilenced(stream.queryId)).toBe(true);
    } finally {
      await restricted.close();
    }
  });
});
