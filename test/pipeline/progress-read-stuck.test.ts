/**
 * A progress row larger than the page byte limit stops the progress-table read there. The source's
 * health says so in Slack, through the path every failed read takes (the poll fails; past the
 * threshold one "StreamDoctor cannot read …" incident in the default channel), naming the limit and
 * the position, instead of the source reading as caught up while no later row is read.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { POLL_JOB } from '../../jobs/queue-names.js';
import { createDatabricksClient } from '../../src/databricks/databricks-client.js';
import { startWorker, type WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import { ProgressTableSource } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { startLocalSlack, type LocalSlack } from '../../src/standins/slack/index.js';
import { sourceStreamId } from '../../src/store/index.js';
import { simulatedBatches } from '../sources/simulated-progress.js';
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
const PAGE_BYTES = 10_000;

let polls = 0;
async function pollOnce(rt: WorkerRuntime): Promise<'completed' | 'failed'> {
  polls += 1;
  const job = await rt.queues.poll.add(POLL_JOB.poll, { sourceId: SOURCE }, { jobId: `stuck-poll-${polls}`, attempts: 1 });
  return waitFor(async () => {
    const state = await rt.queues.poll.getJobState(job.id!);
    return state === 'completed' || state === 'failed' ? state : null;
  }, `poll ${polls} done`, 15_000, 50);
}

describe('a progress row larger than the page byte limit', () => {
  it('is reported by the source health incident, with the limit and the position', async () => {
    const p = uniquePrefix('readstuck');
    prefix = p.prefix;
    databricks = await startLocalDatabricks({ tokens: [TOKEN], warehouses: [WAREHOUSE] });
    slack = await startLocalSlack({ rateLimit: false });
    const now = databricks.clock.now();
    const [batch] = simulatedBatches('orders_agg', 1, now - 120_000);
    const big = JSON.stringify({ ...JSON.parse(batch!.json), observedMetrics: { pad: { blob: 'x'.repeat(20_000) } } });
    databricks.insertProgress(big, { ingestedAtMs: batch!.endMs });
    const client = createDatabricksClient({ host: databricks.url, credentials: { kind: 'pat', token: TOKEN }, retry: { maxAttempts: 1 } });
    const source = new ProgressTableSource({ client, warehouseId: WAREHOUSE, table: 'main.streamdoctor.streaming_progress', watched: { queryIds: [batch!.id], queryNames: [] }, pageBytes: PAGE_BYTES });
    const rt = await startWorker({
      redisUrl: REDIS_URL,
      ...p,
      logger: silentLogger,
      sources: new Map([[SOURCE, { id: SOURCE, workspace: 'prod', source }]]),
      trackers: engineTrackers(),
      chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: slack.apiUrl }),
      routing: { defaultChannel: DEFAULT_CHANNEL },
      sourceFailingAfterMs: THRESHOLD_MS,
    });
    runtime = rt;

    expect(await pollOnce(rt)).toBe('failed');
    expect(await rt.store.sources.isFailing(SOURCE)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, THRESHOLD_MS + 50));
    expect(await pollOnce(rt)).toBe('failed');
    const [record] = await waitFor(async () => {
      const list = await rt.store.incidents.listForQuery(sourceStreamId(SOURCE));
      return list.length === 1 && list[0]!.slack ? list : null;
    }, 'source incident posted');
    expect(record).toMatchObject({ kind: 'source_unreadable', state: 'open', channel: DEFAULT_CHANNEL });
    const blocks = JSON.stringify(slack.messages(DEFAULT_CHANNEL)[0]!.blocks);
    expect(blocks).toContain(`StreamDoctor cannot read prod.progress: a progress row larger than the page byte limit (${PAGE_BYTES} bytes) stops the read after ingested_at 20`);
    expect(blocks).not.toContain(TOKEN);
  }, 60_000);
});
