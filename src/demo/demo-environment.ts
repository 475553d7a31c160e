/**
 * The stand-ins the demo runs against: a local Slack (with the chat view people open) and a local
 * Databricks serving the demo streams in accelerated time. It returns the environment the bot reads
 * (DATABRICKS_HOST, SLACK_API_URL, tokens, STREAMDOCTOR_CONFIG), so the bot then starts exactly as it
 * would against the real services: the same config readers, the same HTTP clients, signed requests.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamSimulator } from '../simulator/index.js';
import { startLocalDatabricks, type JobInfo, type LocalDatabricks } from '../standins/databricks/index.js';
import { startLocalSlack, DEFAULT_BOT, type LocalSlack } from '../standins/slack/index.js';
import { DEMO_CHANNELS } from './demo-channels.js';
import { DEMO_SPEED, DEMO_STREAMS, type DemoStream } from './demo-streams.js';
import { renderDemoWatchConfig, DEMO_PROGRESS_TABLE, DEMO_WAREHOUSE_ID } from './demo-watch-config.js';

/** The PAT the local Databricks accepts in the demo (not a secret: it only opens the stand-in). */
export const DEMO_DATABRICKS_TOKEN = 'dapi-local-0123456789abcdef';
/** The signing secret shared by the local Slack and the app in the demo. */
export const DEMO_SIGNING_SECRET = 'local-signing-secret';

export interface DemoEnvironmentOptions {
  /** Interface both stand-ins listen on. @defaultValue '127.0.0.1' */
  host?: string;
  /**
   * Port of the local Slack (the chat view people open). When taken, a free port is used instead.
   * @defaultValue 3000
   */
  chatPort?: number;
  /** Simulated ms per real ms. @defaultValue DEMO_SPEED (30) */
  speed?: number;
  /** Simulated time at start, epoch ms. @defaultValue Date.now() */
  startMs?: number;
  /** @defaultValue DEMO_STREAMS */
  streams?: DemoStream[];
  /** Local Slack chat.postMessage rate limit; off in tests that post a lot. @defaultValue Slack's (on) */
  slackRateLimit?: boolean;
}

export interface DemoEnvironment {
  slack: LocalSlack;
  databricks: LocalDatabricks;
  /** The chat view, with `localhost` so it reads well in a banner. */
  chatUrl: string;
  /** Path of the generated watch file. */
  configPath: string;
  /** Variables that point the bot at the stand-ins; overlay them on the process environment. */
  env: Record<string, string>;
  streams: DemoStream[];
  speed: number;
  /** The demo's clock: simulated time, the same one the streams' progress timestamps follow. */
  now(): number;
  close(): Promise<void>;
}

async function startSlackOnPreferredPort(host: string, port: number, rateLimit: boolean): Promise<LocalSlack> {
  const options = { host, channels: DEMO_CHANNELS, ...(rateLimit ? {} : { rateLimit: false as const }) };
  if (port !== 0) {
    try {
      return await startLocalSlack({ ...options, port });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
  return startLocalSlack({ ...options, port: 0 });
}

/** The job cluster `jobs/get` reports for a demo stream: as many 4-core workers as its simulated cores. */
function demoCompute(cores: number): JobInfo['compute'] {
  const workers = Math.max(1, Math.round(cores / 4));
  return {
    job_clusters: [{ job_cluster_key: 'main', new_cluster: { spark_version: '15.4.x-scala2.12', node_type_id: 'i3.xlarge', num_workers: workers } }],
    tasks: [{ task_key: 'stream', job_cluster_key: 'main' }],
  };
}

export async function startDemoEnvironment(options: DemoEnvironmentOptions = {}): Promise<DemoEnvironment> {
  const host = options.host ?? '127.0.0.1';
  const speed = options.speed ?? DEMO_SPEED;
  const startMs = options.startMs ?? Date.now();
  const streams = options.streams ?? DEMO_STREAMS;
  const closers: (() => Promise<void>)[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'streamdoctor-demo-'));
  closers.push(async () => rmSync(dir, { recursive: true, force: true }));
  try {
    const slack = await startSlackOnPreferredPort(host, options.chatPort ?? 3000, options.slackRateLimit ?? true);
    closers.push(() => slack.close());

    const databricks = await startLocalDatabricks({
      host,
      startMs,
      speed,
      tokens: [DEMO_DATABRICKS_TOKEN],
      warehouses: [DEMO_WAREHOUSE_ID],
      progressTables: [DEMO_PROGRESS_TABLE],
      pipelines: streams.flatMap((s) => (s.pipeline ? [s.pipeline] : [])),
      jobs: streams.flatMap((s) => (s.job ? [{ jobId: s.job.jobId, name: s.job.name, continuous: true, compute: demoCompute(s.spec(startMs).processing.cores ?? 8) }] : [])),
    });
    closers.push(() => databricks.close());
    for (const stream of streams) {
      databricks.addStream(stream.key, {
        generator: new StreamSimulator(stream.spec(startMs), { startMs, seed: stream.seed }),
        ...(stream.pipeline ? { pipelineId: stream.pipeline.pipelineId } : { table: DEMO_PROGRESS_TABLE }),
        ...(stream.job ? { jobId: stream.job.jobId } : {}),
      });
    }

    const configPath = join(dir, 'streamdoctor.demo.yml');
    writeFileSync(configPath, renderDemoWatchConfig(streams, DEMO_CHANNELS, { host: databricks.url }));

    const chatUrl = slack.url.replace('//127.0.0.1:', '//localhost:');
    return {
      slack,
      databricks,
      chatUrl,
      configPath,
      streams,
      speed,
      env: {
        DATABRICKS_HOST: databricks.url,
        DATABRICKS_TOKEN: DEMO_DATABRICKS_TOKEN,
        SLACK_BOT_TOKEN: DEFAULT_BOT.token,
        SLACK_SIGNING_SECRET: DEMO_SIGNING_SECRET,
        SLACK_API_URL: slack.apiUrl,
        STREAMDOCTOR_CONFIG: configPath,
      },
      now: () => databricks.clock.now(),
      async close() {
        for (const close of closers.reverse()) await close().catch(() => undefined);
      },
    };
  } catch (err) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    throw err;
  }
}
