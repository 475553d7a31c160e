/**
 * Capacity advice in workers, end to end on the Slack side: the engine's incidents in a real Redis
 * store, the job's cluster spec read with jobs/get from the local Databricks over HTTP, and what
 * `/stream tune` and the alert say for a stream whose job is known vs one whose job is not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobClusterCache, jobClusterAdvisor } from '../../src/capacity/index.js';
import { createDatabricksClient } from '../../src/databricks/index.js';
import { renderForRecord } from './helpers/render-for-record.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { CHANNEL, MARIA, startHarness, type Harness } from './helpers/harness.js';
import { seedScenario, type SeededStream } from './helpers/seed.js';

const PAT = 'dapi-local-advice-workers-000000009';
let h: Harness;
let local: LocalDatabricks;
let onJob: SeededStream;
let noJob: SeededStream;
let autoscaled: SeededStream;
let nowMs = 0;

async function tune(query: string) {
  const outcome = await h.slack.interactions.slashCommand({ user: MARIA, channel: CHANNEL, text: `tune ${query}` });
  expect(outcome.delivery.status).toBe(200);
  const record = await h.until(() => h.slack.responses().find((r) => r.url === outcome.responseUrl && r.responses.length > 0));
  return JSON.stringify((record.responses[0] as { blocks?: unknown[] }).blocks);
}

function capacityOf(stream: SeededStream) {
  const lag = stream.incidents.find((r) => r.kind === 'lag')!;
  return lag.incident.advice.find((a) => a.throughputFactor !== undefined)!;
}

beforeAll(async () => {
  local = await startLocalDatabricks({
    tokens: [PAT],
    speed: 0,
    jobs: [
      {
        jobId: 812,
        name: 'orders-agg',
        continuous: true,
        compute: {
          job_clusters: [{ job_cluster_key: 'main', new_cluster: { spark_version: '15.4.x-scala2.12', node_type_id: 'i3.2xlarge', num_workers: 4 } }],
          tasks: [{ task_key: 'stream', job_cluster_key: 'main' }],
        },
      },
      {
        jobId: 813,
        name: 'merchant-agg',
        continuous: true,
        compute: { tasks: [{ task_key: 'agg', new_cluster: { node_type_id: 'Standard_E8ds_v4', autoscale: { min_workers: 2, max_workers: 8 } } }] },
      },
    ],
  });
  h = await startHarness({ now: () => nowMs });
  const databricks = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT } });
  h.deps.advisor = jobClusterAdvisor(new JobClusterCache({ jobsFor: (workspace) => (workspace === 'prod' ? databricks.jobs : null) }));
  onJob = await seedScenario(h.store, 'kafka-uncapped-overload-12pct', { jobId: '812', workspace: 'prod' });
  noJob = await seedScenario(h.store, 'oss-kafka-overload-12pct');
  autoscaled = await seedScenario(h.store, 'lag-then-scale-up', { jobId: '813', workspace: 'prod', take: 60 });
  nowMs = Math.max(onJob.nowMs, noJob.nowMs, autoscaled.nowMs);
  for (const s of [onJob, noJob, autoscaled]) await h.store.routing.setRoute('query', s.queryId, CHANNEL);
});

afterAll(async () => {
  await h?.close();
  await local?.close();
});

describe('capacity advice in workers', () => {
  it('tune on a stream whose job cluster is known: num_workers from 4, 8 cores each, and the figure', async () => {
    const advice = capacityOf(onJob);
    const to = Math.ceil(4 * advice.throughputFactor!);
    const body = await tune('orders_5min_agg');
    expect(body).toContain(`Raise \`num_workers\` from 4 to ${to} on job cluster \`main\` (8 cores each, 32 → ${to * 8} cores): the query needs about`);
    expect(body).toContain(`(load factor ${advice.loadFactor!.toFixed(2)} plus headroom to drain the backlog)`);
    expect(body).toContain(`\`num_workers = ${to}\``);
    expect(body).not.toContain('more or larger workers');
  });

  it('tune on a stream without a known job keeps today\'s wording', async () => {
    const advice = capacityOf(noJob);
    const body = await tune('clickstream_oss');
    expect(body).toContain('Give the query about');
    expect(body).toContain('more or larger workers');
    expect(body).toContain(`load factor ${advice.loadFactor!.toFixed(2)}`);
    expect(body).not.toContain('num_workers');
  });

  it('the alert: first thing to try in workers (autoscale max) when the job is known, as before when not', async () => {
    const lag = autoscaled.incidents.find((r) => r.kind === 'lag' && r.incident.advice[0]?.throughputFactor !== undefined);
    expect(lag, "lag-then-scale-up opens a capacity incident").toBeDefined();
    if (lag) {
      const to = Math.ceil(8 * lag.incident.advice[0]!.throughputFactor!);
      const alert = JSON.stringify((await renderForRecord(h.deps, lag)).blocks);
      expect(alert).toContain(`*First thing to try*\\nRaise autoscale max from 8 to ${to} workers on the cluster of task \`agg\` (8 cores each, at most 64 → ${to * 8} cores)`);
      expect(alert).toContain(`\`autoscale.max_workers = ${to}\``);
    }
    const known = onJob.incidents.find((r) => r.kind === 'lag')!;
    const knownAlert = JSON.stringify((await renderForRecord(h.deps, known)).blocks);
    expect(knownAlert).toMatch(/First thing to try\*\\nRaise `num_workers` from 4 to \d+ on job cluster `main` \(8 cores each/);
    const unknown = noJob.incidents.find((r) => r.kind === 'lag')!;
    const unknownAlert = JSON.stringify((await renderForRecord(h.deps, unknown)).blocks);
    expect(unknownAlert).toContain('*First thing to try*\\nGive the query about');
    // The stored incident keeps the engine's words: only what is shown changes.
    expect((await h.store.incidents.get(known.id))!.incident.advice.some((a) => a.text.startsWith('Give the query about'))).toBe(true);
  });

  it('reads each job once, not on every render', async () => {
    const gets = local.requests().byRoute['GET /api/2.1/jobs/get'] ?? 0;
    expect(gets).toBeGreaterThanOrEqual(1);
    expect(gets).toBeLessThanOrEqual(2);
  });
});
