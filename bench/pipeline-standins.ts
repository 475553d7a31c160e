/**
 * The stand-ins of `npm run bench:pipeline` in a process of their own: the local Databricks serving
 * the simulated streams and the local Slack receiving the posts. Apart from the workers so their CPU
 * (SQL evaluation, serializing result pages, simulating batches) is shown apart from the pipeline's.
 * Driven over the IPC channel: `{ id, op }` → `{ id, result }`.
 *
 * Config (argv[2], JSON): queries, lagging, channels, benchStart.
 */
import { readFileSync } from 'node:fs';
import { StreamSimulator, constantRate, steppedRate, type StreamSpec } from '../src/simulator/index.js';
import { startLocalDatabricks } from '../src/standins/databricks/index.js';
import { startLocalSlack } from '../src/standins/slack/index.js';

import { benchChannelId, benchQueryId, type StandinsConfig } from './pipeline-ipc.js';

async function main(): Promise<void> {
  const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as StandinsConfig;
  const { queries, lagging, channels, benchStart } = config;
  // The stand-in caps rows per table (20,000 by default); 2,000 streams write that in 100 s, and the
  // two minutes of history alone exceed it. Keep ten minutes, so no row is dropped before a poll reads it.
  const databricks = await startLocalDatabricks({ startMs: benchStart, speed: 1, tickMs: 100, maxRowsPerTable: queries * 60 });
  const slack = await startLocalSlack({
    channels: Array.from({ length: channels }, (_, k) => ({ id: benchChannelId(k), name: `bench-${k}` })),
  });

  // When each batch became visible in Databricks, by query and batch id (the latency origin).
  const appeared = new Map<string, Map<number, number>>();
  const historyMs = 2 * 60_000; // each stream has two minutes of history when the bench starts
  for (let i = 0; i < queries; i++) {
    const id = benchQueryId(i);
    const isLagging = i < lagging;
    const stepAt = benchStart + 5_000 + Math.floor((i * 30_000) / Math.max(1, lagging));
    const spec: StreamSpec = {
      id,
      name: `${isLagging ? 'orders_lagging' : 'orders'}_${i}`,
      arrival: isLagging ? steppedRate(12_000, [{ atMs: stepAt, rowsPerSec: 45_000 }]) : constantRate(6_000 + (i % 50) * 100),
      processing: { rowsPerSecPerCore: 2_500, cores: 8 },
      triggerMs: 10_000,
      source: { kind: 'kafka', topic: `orders${i}`, partitions: 8, maxOffsetsPerTrigger: 200_000 },
    };
    const sim = new StreamSimulator(spec, { startMs: benchStart - historyMs - (i % 10) * 1000, seed: 11 + i });
    const times = new Map<number, number>();
    appeared.set(id, times);
    databricks.addStream(id, {
      generator: {
        next() {
          const batch = sim.next();
          const batchId = Number((batch.progress as { batchId?: unknown }).batchId);
          // History rows all appear at the first tick; later ones when their batch ends.
          times.set(batchId, Math.max(batch.endMs, benchStart));
          return batch;
        },
      },
    });
  }

  const cpu = () => {
    const usage = process.cpuUsage();
    return usage.user + usage.system;
  };
  const ops: Record<string, (arg: Record<string, unknown>) => unknown> = {
    cpu: () => cpu(),
    /** Batches visible at or before `atMs`. */
    visible: (arg) => {
      const atMs = Number(arg.atMs);
      let n = 0;
      for (const times of appeared.values()) for (const t of times.values()) if (t <= atMs) n++;
      return n;
    },
    /** When batch `batchId` of each asked query appeared: `[queryId, batchId]` pairs → ms or null. */
    appearedAt: (arg) => (arg.pairs as [string, number][]).map(([id, batchId]) => appeared.get(id)?.get(batchId) ?? null),
    /** Every message of every bench channel: key (metadata), ts, thread_ts. */
    messages: () =>
      Array.from({ length: channels }, (_, k) =>
        slack.messages(benchChannelId(k)).map((m) => ({
          channel: benchChannelId(k),
          ts: m.ts,
          threadTs: m.thread_ts ?? null,
          key: (m.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key ?? '',
        })),
      ).flat(),
    topLevelMessages: () => slack.messages().filter((m) => !m.thread_ts).length,
  };

  process.on('message', (raw: { id: number; op: string; arg?: Record<string, unknown> }) => {
    if (raw.op === 'close') {
      void Promise.allSettled([databricks.close(), slack.close()]).then(() => {
        process.send?.({ id: raw.id, result: null }, () => process.exit(0));
      });
      return;
    }
    let result: unknown;
    try {
      result = ops[raw.op]!(raw.arg ?? {});
    } catch (err) {
      process.send?.({ id: raw.id, error: String(err) });
      return;
    }
    process.send?.({ id: raw.id, result });
  });
  process.send?.({ id: 0, result: { databricksUrl: databricks.url, slackApiUrl: slack.apiUrl } });
}

await main();
