/**
 * The notify job says capacity advice in workers when the stream's job cluster is known: the job's
 * spec read with jobs/get from the local Databricks over HTTP, the alert posted to the local Slack.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { JobClusterCache, jobClusterAdvisor } from '../../src/capacity/index.js';
import { createDatabricksClient } from '../../src/databricks/index.js';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import type { WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import type { LocalSlack } from '../../src/standins/slack/index.js';
import { incidentIdOf } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { commitAndDrain, deletePrefix, REDIS_URL, startNotifyWorker, waitFor } from '../pipeline/helpers/harness.js';

const PAT = 'dapi-local-notify-workers-00000000011';
const CHANNEL = 'C0DATAALRT';
let runtime: WorkerRuntime | undefined;
let slack: LocalSlack | undefined;
let local: LocalDatabricks | undefined;
let prefix: string | undefined;

afterEach(async () => {
  await runtime?.close();
  await slack?.close();
  await local?.close();
  if (prefix) await deletePrefix(REDIS_URL, prefix);
  runtime = slack = local = prefix = undefined;
});

// The engine's capacity advice for a load factor of 1.14 (src/diagnosis/causes/lag-causes.ts).
const capacity = lagIncident('2026-11-29T10:06:40.000Z', {
  advice: [
    {
      text: 'Give the query about 1.31× its current throughput (load factor 1.14 plus headroom to drain the backlog): more or larger workers. A longer trigger interval will not help: batches already run back to back, and a longer interval only adds idle time.',
      throughputFactor: 1.311,
      loadFactor: 1.14,
    },
  ],
});

async function setup() {
  local = await startLocalDatabricks({
    tokens: [PAT],
    speed: 0,
    jobs: [
      {
        jobId: 812,
        name: 'orders-agg',
        continuous: true,
        compute: {
          job_clusters: [{ job_cluster_key: 'main', new_cluster: { node_type_id: 'i3.2xlarge', num_workers: 4 } }],
          tasks: [{ task_key: 'stream', job_cluster_key: 'main' }],
        },
      },
    ],
  });
  const databricks = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT } });
  ({ runtime, slack, prefix } = await startNotifyWorker('notify-workers', {
    routing: { defaultChannel: CHANNEL },
    channelIntervalMs: 0,
    store: { storm: { windowMs: 30_000, threshold: 100 } },
    capacityAdvisor: jobClusterAdvisor(new JobClusterCache({ jobsFor: (workspace) => (workspace === 'prod' ? databricks.jobs : null) })),
  }));
  return runtime;
}

async function open(rt: WorkerRuntime, queryId: string, stream: { jobId?: string; workspace?: string }) {
  await rt.store.streams.upsert({ queryId, name: `orders_${queryId.slice(-2)}`, ...stream });
  const change: IncidentChange = { type: 'opened', queryId, queryName: `orders_${queryId.slice(-2)}`, incident: capacity };
  await commitAndDrain(rt, queryId, [change]);
  const id = incidentIdOf(queryId, capacity);
  const posted = await waitFor(async () => (await rt.store.incidents.get(id))?.slack, 'posted');
  return JSON.stringify(slack!.messages(CHANNEL).find((m) => m.ts === posted.ts)?.blocks);
}

describe('notify: capacity advice in workers', () => {
  it('a stream on a known job cluster gets workers; one without a job keeps the engine wording', async () => {
    const rt = await setup();
    const known = await open(rt, '7a1c0f3e-5b2d-4c8e-9f10-000000000001', { jobId: '812', workspace: 'prod' });
    expect(known).toContain(
      '*First thing to try*\\nRaise `num_workers` from 4 to 6 on job cluster `main` (8 cores each, 32 → 48 cores): the query needs about 1.31× its current throughput (load factor 1.14 plus headroom to drain the backlog), and 4 × 1.31 = 5.24, rounded up. A longer trigger interval will not help',
    );
    expect(known).toContain('`num_workers = 6`');
    const unknown = await open(rt, '7a1c0f3e-5b2d-4c8e-9f10-000000000002', {});
    expect(unknown).toContain('*First thing to try*\\nGive the query about 1.31× its current throughput (load factor 1.14 plus headroom to drain the backlog): more or larger workers.');
    expect(unknown).not.toContain('num_workers');
    expect(local!.requests().byRoute['GET /api/2.1/jobs/get']).toBe(1);
  });
});
