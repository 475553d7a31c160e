/**
 * Source health end to end: the progress-table source reads the local Databricks over HTTP; when
 * its reads fail for longer than the threshold (a revoked token, a deleted SQL warehouse), one
 * "StreamDoctor cannot read …" incident is posted in the default channel, updated in place when the
 * reason changes, and resolved (one thread reply) by the next successful read. The gauge
 * `streamdoctor_source_last_success_timestamp_seconds` follows the successful reads.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { POLL_JOB } from '../../jobs/queue-names.js';
import { WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import { createDatabricksClient } from '../../src/databricks/databricks-client.js';
import { startWorker, type WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { renderAppHome } from '../../src/slack/render/app-home.js';
import { ProgressTableSource } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { sourceStreamId } from '../../src/store/index.js';
import { deletePrefix, REDIS_URL, silentLogger, uniquePrefix, waitFor } from './helpers/harness.js';

let runtime: WorkerRuntime | undefined;
let slack: LocalSlack | undefined;
let databricks: LocalDatabricks | undefined;
let prefix: string | undefined;

afterEach(async () => {
  await runtime?.close();
  await slack?.close();
  await databricks?.close();
  if (prefix) await deletePrefix(REDIS_URL, prefix);
  runtime = slack = databricks = prefix = undefined;
});

const TOKEN = 'dapi-local-0123456789abcdef';
const WAREHOUSE = '0c7d5e2f9a1b3c46';
const SOURCE = 'prod.progress';
const DEFAULT_CHANNEL = 'C0DATAALRT';
const THRESHOLD_MS = 600;

let polls = 0;
/** One poll job, run to its end (a failing one is retried once by BullMQ, then fails). */
async function pollOnce(rt: WorkerRuntime): Promise<'completed' | 'failed'> {
  polls += 1;
  const job = await rt.queues.poll.add(POLL_JOB.poll, { sourceId: SOURCE }, { jobId: `test-poll-${polls}`, attempts: 1 });
  return waitFor(async () => {
    const state = await rt.queues.poll.getJobState(job.id!);
    return state === 'completed' || state === 'failed' ? state : null;
  }, `poll ${polls} done`, 15_000, 50);
}

async function notifyIdle(rt: WorkerRuntime): Promise<boolean> {
  const d = await rt.queues.depths();
  return d.notify!.waiting + d.notify!.active + d.notify!.delayed === 0;
}

async function lastSuccessGauge(rt: WorkerRuntime): Promise<number | null> {
  const metric = await rt.metrics.registry.getSingleMetric('streamdoctor_source_last_success_timestamp_seconds')!.get();
  return metric.values.find((v) => v.labels.source === SOURCE)?.value ?? null;
}

async function start(statementTimeoutMs?: number): Promise<WorkerRuntime> {
  const p = uniquePrefix('srchealth');
  prefix = p.prefix;
  databricks = await startLocalDatabricks({ tokens: [TOKEN], warehouses: [WAREHOUSE] });
  slack = await startLocalSlack({ rateLimit: false });
  // No retries in the client: each poll is one attempt, so the test runs in seconds.
  const client = createDatabricksClient({ host: databricks.url, credentials: { kind: 'pat', token: TOKEN }, retry: { maxAttempts: 1 } });
  const source = new ProgressTableSource({
    client,
    warehouseId: WAREHOUSE,
    table: 'main.streamdoctor.streaming_progress',
    watched: { queryIds: ['4f1e1c4a-7d4b-4a8e-9d7e-2b6c0c9a1f00'], queryNames: [] },
    ...(statementTimeoutMs ? { waitTimeout: '0s', statement: { timeoutMs: statementTimeoutMs, pollIntervalMs: 100 } } : {}),
  });
  runtime = await startWorker({
    redisUrl: REDIS_URL,
    ...p,
    logger: silentLogger,
    sources: new Map([[SOURCE, { id: SOURCE, workspace: 'prod', source }]]),
    trackers: engineTrackers(),
    chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: slack.apiUrl }),
    routing: { defaultChannel: DEFAULT_CHANNEL },
    sourceFailingAfterMs: THRESHOLD_MS,
  });
  return runtime;
}

/** Fails polls past the threshold; returns the posted incident and its message. */
async function failUntilPosted(rt: WorkerRuntime) {
  expect(await pollOnce(rt)).toBe('failed');
  // Failing, but not for long yet: nothing is said.
  expect(await rt.store.incidents.listForQuery(sourceStreamId(SOURCE))).toEqual([]);
  await new Promise((r) => setTimeout(r, THRESHOLD_MS + 50));
  expect(await pollOnce(rt)).toBe('failed');
  const [record] = await waitFor(async () => {
    const list = await rt.store.incidents.listForQuery(sourceStreamId(SOURCE));
    return list.length === 1 && list[0]!.slack ? list : null;
  }, 'source incident posted');
  await waitFor(() => notifyIdle(rt), 'notify idle');
  // Another failing poll with the same reason changes nothing.
  expect(await pollOnce(rt)).toBe('failed');
  await waitFor(() => notifyIdle(rt), 'notify idle');
  const messages = slack!.messages(DEFAULT_CHANNEL);
  expect(messages).toHaveLength(1);
  return { record: record!, message: messages[0]! };
}

async function succeedAndResolve(rt: WorkerRuntime, incidentId: string, ts: string): Promise<void> {
  const before = Date.now() / 1000;
  expect(await pollOnce(rt)).toBe('completed');
  await waitFor(async () => (await rt.store.incidents.get(incidentId))?.state === 'resolved', 'resolved');
  await waitFor(async () => slack!.thread(DEFAULT_CHANNEL, ts).length === 2, 'resolve reply');
  await waitFor(() => notifyIdle(rt), 'notify idle');
  expect(slack!.messages(DEFAULT_CHANNEL)).toHaveLength(1);
  expect(JSON.stringify(slack!.messages(DEFAULT_CHANNEL)[0]!.blocks)).toContain('Resolved');
  expect((await lastSuccessGauge(rt))!).toBeGreaterThanOrEqual(Math.floor(before));
  expect(await rt.store.sources.get(SOURCE)).toMatchObject({ failingSince: null, incidentId: null });
  // Reads keep succeeding: nothing more is said.
  expect(await pollOnce(rt)).toBe('completed');
  await waitFor(() => notifyIdle(rt), 'notify idle');
  expect(slack!.thread(DEFAULT_CHANNEL, ts)).toHaveLength(2);
  expect(await rt.queues.notify.getFailedCount()).toBe(0);
}

describe('source health in Slack', () => {
  it('a revoked token: one incident in the default channel after the threshold, resolved when the token works again', async () => {
    const rt = await start();
    expect(await pollOnce(rt)).toBe('completed');
    const firstSuccess = await lastSuccessGauge(rt);
    expect(firstSuccess).toBeGreaterThan(Date.parse('2026-01-01') / 1000);

    databricks!.revokeToken(TOKEN);
    const { record, message } = await failUntilPosted(rt);
    expect(record).toMatchObject({ kind: 'source_unreadable', state: 'open', channel: DEFAULT_CHANNEL, queryName: SOURCE });
    const blocks = JSON.stringify(message.blocks);
    expect(blocks).toContain('StreamDoctor cannot read prod.progress: Databricks refused the credentials (');
    expect(blocks).toContain('Invalid access token');
    expect(blocks).toContain('re-issue the token');
    expect(blocks).not.toContain(TOKEN);
    // The gauge stays at the last success while reads fail.
    expect(await lastSuccessGauge(rt)).toBe(firstSuccess);
    // App Home lists it for people in the channel.
    const home = JSON.stringify(renderAppHome({ userId: 'U0ALICE', nowMs: Date.now(), openIncidents: await rt.store.incidents.listOpen(), silences: [], watches: [] }).blocks);
    expect(home).toContain('StreamDoctor cannot read prod.progress');
    // The streams of an unreadable source are not judged stalled meanwhile.
    expect(await rt.store.sources.isFailing(SOURCE)).toBe(true);

    databricks!.restoreToken(TOKEN);
    await succeedAndResolve(rt, record.id, message.ts);
  }, 60_000);

  it('a deleted warehouse: the incident says so and what to do; a token revoked meanwhile updates it in place; recreated, it resolves', async () => {
    const rt = await start();
    expect(await pollOnce(rt)).toBe('completed');
    databricks!.deleteWarehouse(WAREHOUSE);
    const { record, message } = await failUntilPosted(rt);
    const blocks = JSON.stringify(message.blocks);
    expect(blocks).toContain('StreamDoctor cannot read prod.progress: the SQL warehouse does not exist');
    expect(blocks).toContain('warehouse_id');

    // Another reason while open: the same message, re-worded.
    databricks!.revokeToken(TOKEN);
    expect(await pollOnce(rt)).toBe('failed');
    await waitFor(async () => JSON.stringify(slack!.messages(DEFAULT_CHANNEL)[0]?.blocks).includes('refused the credentials'), 'updated in place');
    await waitFor(() => notifyIdle(rt), 'notify idle');
    expect(slack!.messages(DEFAULT_CHANNEL)).toHaveLength(1);
    expect((await rt.store.incidents.get(record.id))!.version).toBe(2);

    databricks!.restoreToken(TOKEN);
    databricks!.createWarehouse(WAREHOUSE);
    await succeedAndResolve(rt, record.id, message.ts);
  }, 60_000);

  it('a stopped warehouse that does not start: statements time out, the incident says to start it; started, it resolves', async () => {
    const rt = await start(500);
    expect(await pollOnce(rt)).toBe('completed');
    databricks!.stopWarehouse(WAREHOUSE);
    const { record, message } = await failUntilPosted(rt);
    expect(record.incident.severity).toBe('warning');
    const blocks = JSON.stringify(message.blocks);
    expect(blocks).toContain('StreamDoctor cannot read prod.progress: statements did not finish in time');
    expect(blocks).toContain('start the SQL warehouse if it is stopped');
    databricks!.startWarehouse(WAREHOUSE);
    await succeedAndResolve(rt, record.id, message.ts);
  }, 60_000);
});
