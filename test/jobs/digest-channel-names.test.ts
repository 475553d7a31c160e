/**
 * A daily digest of a channel the watch file routes to by name (`#data-alerts`) lists that channel's
 * streams even when Slack fails to describe the channel (conversations.info) at that moment: the
 * digest is posted once a day, so one failed call must not leave its streams out for the day.
 */
import { describe, expect, it } from 'vitest';
import type { WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import type { LocalSlack } from '../../src/standins/slack/index.js';
import { notifyWorkerPerTest, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();
let runtime: WorkerRuntime | undefined;
let slack: LocalSlack | undefined;

describe('daily digest of a channel routed by name', () => {
  it('lists its streams when conversations.info fails once', async () => {
    // The watch file's routes: one query and the default channel, both written by name.
    ({ runtime, slack } = await worker.start('digest-names', { routing: { defaultChannel: '#data-alerts', queries: { 'q-orders': '#data-alerts' } } }));
    const rt = runtime;
    await rt.store.streams.upsert({ queryId: 'q-orders', name: 'orders_enrichment' });
    await rt.store.streams.upsert({ queryId: 'q-clicks', name: 'clickstream' });
    slack.faults.inject({ kind: 'server_error', method: 'conversations.info', channel: 'C0DATAALRT' });

    await rt.queues.digest.add('all', { kind: 'all', day: '2026-11-29' });
    const digest = await waitFor(() => slack!.messages('C0DATAALRT').find((m) => m.text.startsWith('Daily stream health')), 'the digest');
    const body = JSON.stringify(digest.blocks);
    expect(body).not.toContain('No streams are routed to this channel');
    expect(body).toContain('orders_enrichment');
    expect(body).toContain('clickstream');
    expect(slack.faults.hitCounts().server_error).toBe(1);
  });
});
