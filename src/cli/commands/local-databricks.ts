/**
 * `streamdoctor local-databricks [--port N] [--host H] [--speed X] [--scenarios a,b] [--late F]`
 *
 * Runs the local Databricks on its own, with labelled simulator scenarios playing as live streams
 * (progress table rows, job runs, one pipeline's event log), and prints its URL, credentials and a
 * watch-file snippet that points StreamDoctor at it. Stops on SIGINT / SIGTERM.
 */
import { SCENARIOS, scenarioByName, type Scenario } from '../../simulator/index.js';
import { LOCAL_WAREHOUSE_ID, playScenario, startLocalDatabricks, type PlayedStream } from '../../standins/databricks/index.js';
import { HELP_OPTION, parseCommandArgs, UsageError, wantsHelp } from '../command-args.js';
import { waitForStopSignal } from '../wait-for-stop-signal.js';

export const USAGE = `usage: streamdoctor local-databricks [options]

Runs a local Databricks (OAuth token, SQL statements, pipeline events, job runs) whose streams are
played by the simulator, with faults on demand at POST <url>/__admin/faults.

options:
  --port N           port to listen on (default 3200; 0 picks a free one)
  --host H           interface (default 127.0.0.1)
  --speed X          simulated seconds per real second (default 1; 60 turns an hour into a minute)
  --scenarios a,b    scenario names to play (default: a healthy, a lagging and a state-growth one)
  --late F           fraction of progress rows written late, 0..1 (default 0)
  --list             list the scenario names and exit
  -h, --help         this help
`;

const PAT = 'dapi-local-0123456789abcdef';
const CLIENT = { clientId: 'streamdoctor-local-sp', clientSecret: 'local-client-secret' };
const TABLE = 'main.streamdoctor.streaming_progress';
const PIPELINE_ID = 'abcdef12-abcd-3456-7890-abcd1234ef56';

interface Flags {
  port: number;
  host: string;
  speed: number;
  scenarios: string[] | null;
  late: number;
  list: boolean;
}

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  speed: { type: 'string' },
  scenarios: { type: 'string' },
  late: { type: 'string' },
  list: { type: 'boolean' },
  ...HELP_OPTION,
} as const;

export function parseFlags(argv: string[]): Flags | 'help' | { error: string } {
  if (wantsHelp(argv)) return 'help';
  let values;
  try {
    ({ values } = parseCommandArgs(argv, OPTIONS));
  } catch (error) {
    if (error instanceof UsageError) return { error: error.message };
    throw error;
  }
  const flags: Flags = { port: 3200, host: values.host || '127.0.0.1', speed: 1, scenarios: null, late: 0, list: values.list ?? false };
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) return { error: '--port needs a number from 0 to 65535' };
    flags.port = port;
  }
  if (values.speed !== undefined) {
    const speed = Number(values.speed);
    if (!(speed > 0) || speed > 10_000) return { error: '--speed needs a number above 0 (at most 10000), e.g. 60' };
    flags.speed = speed;
  }
  if (values.late !== undefined) {
    const late = Number(values.late);
    if (values.late.trim() === '' || !(late >= 0 && late <= 1)) return { error: '--late needs a fraction from 0 to 1, e.g. 0.2' };
    flags.late = late;
  }
  if (values.scenarios !== undefined) flags.scenarios = values.scenarios.split(',').map((part) => part.trim()).filter(Boolean);
  return flags;
}

function defaultScenarios(): Scenario[] {
  const pick = (predicate: (scenario: Scenario) => boolean) => SCENARIOS.find(predicate);
  const chosen = [
    pick((scenario) => scenario.expected.length === 0),
    pick((scenario) => scenario.expected.some((expected) => expected.kind === 'lag')),
    pick((scenario) => scenario.expected.some((expected) => expected.kind === 'state_growth')),
  ].filter((scenario): scenario is Scenario => scenario !== undefined);
  return chosen.length ? chosen : SCENARIOS.slice(0, 3);
}

export async function run(argv: string[]): Promise<number> {
  const flags = parseFlags(argv);
  if (flags === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if ('error' in flags) {
    process.stderr.write(`streamdoctor local-databricks: ${flags.error}\n\n${USAGE}`);
    return 2;
  }
  if (flags.list) {
    for (const scenario of SCENARIOS) process.stdout.write(`${scenario.name.padEnd(40)} ${scenario.description}\n`);
    return 0;
  }
  let scenarios: Scenario[];
  try {
    scenarios = flags.scenarios ? flags.scenarios.map((name) => scenarioByName(name)) : defaultScenarios();
  } catch (error) {
    process.stderr.write(`streamdoctor local-databricks: ${(error as Error).message}; see --list\n`);
    return 2;
  }
  const jobs = scenarios.map((scenario, index) => ({ jobId: 1_000 + index, name: `${scenario.spec.name ?? scenario.name}-job`, continuous: true }));
  let local;
  try {
    local = await startLocalDatabricks({
      port: flags.port,
      host: flags.host,
      speed: flags.speed,
      tokens: [PAT],
      oauthClients: [CLIENT],
      progressTables: [TABLE],
      pipelines: [{ pipelineId: PIPELINE_ID, name: 'silver-orders' }],
      jobs,
    });
  } catch (error) {
    process.stderr.write(`streamdoctor local-databricks: could not start: ${(error as Error).message}\n`);
    return 1;
  }
  const played: PlayedStream[] = scenarios.map((scenario, index) => playScenario(local, scenario, { jobId: 1_000 + index, lateFraction: flags.late }));
  // One more copy of the first scenario as a pipeline flow, so the event log has progress too.
  if (scenarios[0]) played.push(playScenario(local, { ...scenarios[0], name: `${scenarios[0].name}-pipeline` }, { pipelineId: PIPELINE_ID }));

  process.stdout.write(
    `Local Databricks is running at ${local.url} (speed ${flags.speed}×)\n` +
      `  DATABRICKS_HOST=${local.url}\n  DATABRICKS_TOKEN=${PAT}\n` +
      `  or OAuth: DATABRICKS_CLIENT_ID=${CLIENT.clientId} DATABRICKS_CLIENT_SECRET=${CLIENT.clientSecret}\n` +
      `  warehouse: ${LOCAL_WAREHOUSE_ID}   progress table: ${TABLE}   pipeline: ${PIPELINE_ID}\n` +
      `  faults: curl -XPOST ${local.url}/__admin/faults -d '{"kind":"rate_limit","times":3,"retryAfterSec":2}'\n\n` +
      `Watch file for it:\n${localWatchFile(local.url, played)}\nPress Ctrl+C to stop.\n`,
  );
  await waitForStopSignal();
  await local.close();
  return 0;
}

/** The watch file printed for the stand-in at `url`: its workspace, its pipeline and the played streams that run as jobs. */
export function localWatchFile(url: string, played: readonly Pick<PlayedStream, 'queryId' | 'name' | 'scenario' | 'jobId'>[]): string {
  const streams = played
    .filter((stream) => stream.jobId !== null)
    .map((stream) => `  - query_id: ${stream.queryId}\n    name: ${stream.name ?? stream.scenario}\n    job: ${stream.jobId}`)
    .join('\n');
  return (
    `workspaces:\n  - name: local\n    host: ${url}\n    auth: { token_env: DATABRICKS_TOKEN }\n    warehouse_id: ${LOCAL_WAREHOUSE_ID}\n    progress_table: ${TABLE}\n` +
    `    pipelines:\n      - id: ${PIPELINE_ID}\nstreams:\n${streams}\ndefaults:\n  channel: "#streaming-alerts"\n`
  );
}
