/**
 * An incident that opens while its stream is muted is held, not forgotten: it alerts when the mute
 * ends, early (`/stream unmute`) or on time (a delayed notify job at the silence's end, with the
 * sweep as a backstop). Real Redis, the local Slack over HTTP, the real notify worker.
 */
import { describe, expect, it } from 'vitest';
import { queueAlertRefresher } from '../../jobs/notify-processor.js';
import { releaseEndedSilences } from '../../jobs/poll-processor.js';
import { webApi } from '@slack/bolt';
import type { WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { unsilenceStream } from '../../src/slack/operations/incident-actions.js';
import { PermissionChecker } from '../../src/slack/permissions.js';
import type { LocalSlack } from '../../src/standins/slack/index.js';
import { incidentIdOf } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { commitAndDrain, silentLogger, notifyWorkerPerTest, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();
let runtime: WorkerRuntime | undefined;
let slack: LocalSlack | undefined;
const CHANNEL = 'C0DATAALRT';
const QID = (i: number) => `5e2d0c1b-7a3f-4b9e-8d21-${String(i).padStart(12, '0')}`;

async function setup(): Promise<WorkerRuntime> {
  ({ runtime, slack } = await worker.start('muted', { routing: { defaultChannel: CHANNEL }, channelIntervalMs: 0 }));
  return runtime;
}

/** Opens a warning-level lag incident on a query, as a detect commit + outbox drain would. */
async function open(rt: WorkerRuntime, queryId: string): Promise<string> {
  const incident = lagIncident('2026-11-29T10:06:40.000Z');
  await rt.store.streams.upsert({ queryId, name: `payments_${queryId.slice(-2)}` });
  await commitAndDrain(rt, queryId, [{ type: 'opened', queryId, queryName: `payments_${queryId.slice(-2)}`, incident }]);
  return incidentIdOf(queryId, incident);
}

function keyOf(m: { metadata?: unknown }): string | undefined {
  return (m.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key;
}

const posted = (id: string) => slack!.messages(CHANNEL).filter((m) => keyOf(m) === id);

describe('muted incidents', () => {
  it('an incident that opened during a mute alerts once the mute expires', async () => {
    const rt = await setup();
    await rt.store.silences.silence(QID(1), Date.now() + 1500, 'U0MARIA001');
    const id = await open(rt, QID(1));
    await waitFor(async () => (await rt.store.incidents.get(id))?.notifiedVersion === 1, 'held quietly');
    expect(posted(id)).toHaveLength(0);
    const message = await waitFor(() => posted(id)[0], 'posted after the mute ended', 10_000);
    expect(message.text).not.toContain('🔕');
    await waitFor(async () => (await rt.store.incidents.get(id))?.slack?.ts === message.ts, 'message recorded');
    expect(await rt.store.silences.dueHeld(Date.now() + 3_600_000)).toEqual([]);
  });

  it('the sweep brings back a held incident whose delayed job was lost', async () => {
    const rt = await setup();
    await rt.store.silences.silence(QID(2), Date.now() + 60_000, 'U0MARIA001');
    const id = await open(rt, QID(2));
    await waitFor(async () => (await rt.store.incidents.get(id))?.notifiedVersion === 1, 'held quietly');
    // The silence key ends early by itself (e.g. its TTL) and the delayed job is gone.
    await rt.redis.del(rt.store.keys.silence(QID(2)));
    await rt.queues.notify.obliterate({ force: true });
    await rt.store.silences.hold(id, Date.now() - 1);
    expect(await releaseEndedSilences({ store: rt.store, queues: rt.queues })).toBe(1);
    await waitFor(() => posted(id)[0], 'posted by the sweep', 10_000);
    expect(posted(id)).toHaveLength(1);
    expect(await releaseEndedSilences({ store: rt.store, queues: rt.queues })).toBe(0);
  });

  it('unmute posts an incident that opened while muted, and says so truly', async () => {
    const rt = await setup();
    await rt.store.silences.silence(QID(3), Date.now() + 30 * 60_000, 'U0MARIA001');
    const id = await open(rt, QID(3));
    await waitFor(async () => (await rt.store.incidents.get(id))?.notifiedVersion === 1, 'held quietly');
    expect(posted(id)).toHaveLength(0);
    const deps = {
      store: rt.store,
      logger: silentLogger,
      permissions: new PermissionChecker(),
      alerts: queueAlertRefresher(rt.queues),
    };
    const client = new webApi.WebClient('xoxb-local-streamdoctor', { slackApiUrl: slack!.apiUrl });
    const outcome = await unsilenceStream(client, deps, QID(3), 'U0MARIA001');
    expect(outcome).toMatchObject({ ok: true });
    expect(outcome.message).toContain('1 open incident that opened while silenced will alert now');
    await waitFor(() => posted(id)[0], 'posted after unmute', 10_000);
    // The delayed job at the old silence end finds the message and only updates it.
    expect(posted(id)).toHaveLength(1);
  });
});
