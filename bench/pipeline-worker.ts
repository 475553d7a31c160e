/**
 * One worker process of `npm run bench:pipeline`: the real pipeline (progress-table source over the
 * local Databricks, the engine, notify to the local Slack). Configured by a JSON file (argv[2]).
 * Measures CPU per stage (src/util/stage-cpu.ts) and answers `cpu` over IPC with it.
 */
import { readFileSync } from 'node:fs';
import { engineTrackers } from '../jobs/engine-trackers.js';
import { WebClientChat } from '../src/slack/gateway/slack-chat.js';
import { createDatabricksClient } from '../src/databricks/databricks-client.js';
import { createLogger } from '../src/observability/logger.js';
import { startWorker } from '../src/runtime/pipeline-runtime.js';
import { installShutdown } from '../src/runtime/shutdown.js';
import { ProgressTableSource } from '../src/sources/progress-table-source.js';
import { stageCpu } from '../src/util/stage-cpu.js';

interface BenchWorkerConfig {
  redisUrl: string;
  prefix: string;
  databricksUrl: string;
  token: string;
  slackApiUrl: string;
  queryIds: string[];
  routes: Record<string, string>;
}

stageCpu.enable();
const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as BenchWorkerConfig;
const logger = createLogger({ name: `bench-worker-${process.pid}`, level: process.env.LOG_LEVEL ?? 'warn' });
const client = createDatabricksClient({ host: config.databricksUrl, credentials: { kind: 'pat', token: config.token } });
const source = new ProgressTableSource({
  client,
  warehouseId: '0c7d5e2f9a1b3c46',
  table: 'main.streamdoctor.streaming_progress',
  watched: { queryIds: config.queryIds, queryNames: [] },
  logger,
});
const worker = await startWorker({
  redisUrl: config.redisUrl,
  prefix: config.prefix,
  logger,
  sources: new Map([['bench-table', { id: 'bench-table', source }]]),
  trackers: engineTrackers(),
  chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: config.slackApiUrl }),
  routing: { queries: config.routes },
  // Experiments: BENCH_DETECT_CONCURRENCY / BENCH_NOTIFY_CONCURRENCY / BENCH_GROUP_DEBOUNCE_MS override the defaults.
  workers: {
    concurrency: {
      ...(process.env.BENCH_DETECT_CONCURRENCY ? { detect: Number(process.env.BENCH_DETECT_CONCURRENCY) } : {}),
      ...(process.env.BENCH_NOTIFY_CONCURRENCY ? { notify: Number(process.env.BENCH_NOTIFY_CONCURRENCY) } : {}),
    },
  },
  ...(process.env.BENCH_GROUP_DEBOUNCE_MS ? { groupDebounceMs: Number(process.env.BENCH_GROUP_DEBOUNCE_MS) } : {}),
});
installShutdown(() => worker.close(), { logger });
process.on('message', (raw: { id: number; op: string }) => {
  if (raw.op === 'cpu') process.send?.({ id: raw.id, result: stageCpu.snapshot() });
});
process.send?.({ id: 0, result: 'ready' });
