/**
 * The demo's watch file, written at start into a temp dir and read by the same loader as a real
 * deployment's (`STREAMDOCTOR_CONFIG`). It routes the orders stream to #stream-orders and the rest
 * to #data-alerts, and polls every few seconds because demo time runs fast.
 */
import type { WorkspaceChannel } from '../standins/slack/index.js';
import type { DemoStream } from './demo-streams.js';

export const DEMO_WAREHOUSE_ID = '5c1f0e7a9b3d4e21';
export const DEMO_PROGRESS_TABLE = 'main.streamdoctor.streaming_progress';
/** Name of the workspace entry in the demo watch file. */
export const DEMO_WORKSPACE = 'demo';

export interface DemoWatchConfigOptions {
  /** The local Databricks base URL (the workspace host). */
  host: string;
  /** Poll cadence, seconds of wall-clock time (30 simulated seconds at demo speed). @defaultValue 1 */
  pollSeconds?: number;
  /** Channel (name without #) for anything not routed. @defaultValue 'data-alerts' */
  defaultChannel?: string;
}

const q = (text: string) => JSON.stringify(text); // a JSON string is a valid YAML scalar

export function renderDemoWatchConfig(streams: DemoStream[], channels: WorkspaceChannel[], options: DemoWatchConfigOptions): string {
  const known = new Set(channels.map((c) => c.name));
  for (const stream of streams) {
    if (!known.has(stream.channel)) throw new Error(`demo stream ${stream.name} routes to #${stream.channel}, which the demo workspace does not have`);
  }
  const jobs = streams.filter((s) => s.job);
  const pipelines = streams.filter((s) => s.pipeline);
  const lines = [
    '# StreamDoctor demo watch file, generated at start. Same format as examples/streamdoctor.example.yml;',
    '# the workspace is the local Databricks, whose streams run in accelerated time.',
    'workspaces:',
    `  - name: ${DEMO_WORKSPACE}`,
    `    host: ${q(options.host)}`,
    '    auth:',
    '      token_env: DATABRICKS_TOKEN',
    `    warehouse_id: ${q(DEMO_WAREHOUSE_ID)}`,
    `    progress_table: ${DEMO_PROGRESS_TABLE}`,
    ...(jobs.length ? ['    jobs:'] : []),
    ...jobs.flatMap((s) => [
      `      - id: ${s.job!.jobId}`,
      `        name: ${q(s.job!.name)}`,
      '        continuous: true',
      `        channel: ${q(`#${s.channel}`)}`,
    ]),
    ...(pipelines.length ? ['    pipelines:'] : []),
    ...pipelines.flatMap((s) => [
      `      - id: ${q(s.pipeline!.pipelineId)}`,
      `        name: ${q(s.pipeline!.name)}`,
      `        channel: ${q(`#${s.channel}`)}`,
    ]),
    'streams:',
    ...streams.flatMap((s) => {
      const spec = s.spec(0);
      return [
        `  - query_id: ${s.queryId}`,
        `    name: ${q(s.name)}`,
        `    workspace: ${DEMO_WORKSPACE}`,
        `    channel: ${q(`#${s.channel}`)}`,
        ...(s.job ? [`    job: ${s.job.jobId}`] : []),
        ...(spec.triggerMs ? [`    trigger: ${Math.round(spec.triggerMs / 1000)}s`] : []),
        `    cores: ${spec.processing.cores ?? 8}`,
      ];
    }),
    'defaults:',
    `  channel: ${q(`#${options.defaultChannel ?? 'data-alerts'}`)}`,
    `poll_interval: ${options.pollSeconds ?? 1}s`,
    '',
  ];
  return lines.join('\n');
}
