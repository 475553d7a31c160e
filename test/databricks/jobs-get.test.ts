/** `jobs/get` against the local Databricks over HTTP: the cluster spec, strict errors, and the cached lookup. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobClusterCache } from '../../src/capacity/index.js';
import { createDatabricksClient } from '../../src/databricks/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const PAT = 'dapi-local-jobs-get-test-0000000007';
let local: LocalDatabricks;

beforeAll(async () => {
  local = await startLocalDatabricks({
    tokens: [PAT],
    speed: 0,
    jobs: [
      { jobId: 77, name: 'orders-stream', continuous: true },
      {
        jobId: 78,
        name: 'clicks-stream',
        continuous: true,
        compute: { tasks: [{ task_key: 'ingest', new_cluster: { spark_version: '15.4.x-scala2.12', node_type_id: 'Standard_D8s_v3', autoscale: { min_workers: 2, max_workers: 8 } } }] },
      },
      {
        jobId: 79,
        name: 'two-clusters',
        continuous: false,
        compute: {
          job_clusters: [
            { job_cluster_key: 'small', new_cluster: { node_type_id: 'i3.xlarge', num_workers: 1 } },
            { job_cluster_key: 'big', new_cluster: { node_type_id: 'i3.4xlarge', num_workers: 8 } },
          ],
          tasks: [
            { task_key: 'a', job_cluster_key: 'small' },
            { task_key: 'b', job_cluster_key: 'big' },
          ],
        },
      },
    ],
  });
});
afterAll(async () => {
  await local.close();
});

const client = () => createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, budgetMs: 1_000 } });

async function raw(path: string) {
  const response = await fetch(local.url + path, { headers: { Authorization: `Bearer ${PAT}` } });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('jobs/get', () => {
  it('returns the job settings with its job cluster spec, as Databricks does', async () => {
    const job = await client().jobs.getJob(77);
    expect(job.job_id).toBe(77);
    expect(job.settings?.name).toBe('orders-stream');
    expect(job.settings?.tasks).toEqual([expect.objectContaining({ task_key: 'stream', job_cluster_key: 'main' })]);
    expect(job.settings?.job_clusters).toEqual([
      { job_cluster_key: 'main', new_cluster: { spark_version: '15.4.x-scala2.12', node_type_id: 'i3.xlarge', num_workers: 2 } },
    ]);
  });

  it('a task cluster with autoscale', async () => {
    const job = await client().jobs.getJob(78);
    expect(job.settings?.tasks?.[0]?.new_cluster?.autoscale).toEqual({ min_workers: 2, max_workers: 8 });
    expect(job.settings?.job_clusters).toBeUndefined();
  });

  it('is strict like the real API: 400 for a missing or non-integer id, 404 for an unknown job', async () => {
    expect(await raw('/api/2.1/jobs/get?job_id=abc')).toMatchObject({ status: 400, json: { error_code: 'INVALID_PARAMETER_VALUE' } });
    expect(await raw('/api/2.1/jobs/get?job_id=7.5')).toMatchObject({ status: 400, json: { error_code: 'INVALID_PARAMETER_VALUE' } });
    expect(await raw('/api/2.1/jobs/get')).toMatchObject({ status: 400, json: { error_code: 'INVALID_PARAMETER_VALUE' } });
    expect(await raw('/api/2.1/jobs/get?job_id=404404')).toEqual({ status: 404, json: { error_code: 'RESOURCE_DOES_NOT_EXIST', message: 'Job 404404 does not exist.' } });
    await expect(client().jobs.getJob(404404)).rejects.toMatchObject({ code: 'streamdoctor_databricks_not_found', errorCode: 'RESOURCE_DOES_NOT_EXIST' });
  });
});

describe('JobClusterCache over HTTP', () => {
  it('reads each job once per TTL, and remembers failures briefly', async () => {
    let nowMs = 1_000_000;
    const databricks = client();
    const cache = new JobClusterCache({ jobsFor: (workspace) => (workspace === 'prod' ? databricks.jobs : null), ttlMs: 600_000, failureTtlMs: 60_000, now: () => nowMs });
    local.resetRequestCounts();
    const gets = () => local.requests().byRoute['GET /api/2.1/jobs/get'] ?? 0;

    const [a, b] = await Promise.all([cache.clusterFor('prod', 77), cache.clusterFor('prod', 77)]);
    expect(a).toEqual({ jobClusterKey: 'main', taskKey: null, nodeTypeId: 'i3.xlarge', coresPerWorker: 4, size: { kind: 'fixed', workers: 2 } });
    expect(b).toBe(a);
    expect(await cache.clusterFor('prod', 78)).toMatchObject({ taskKey: 'ingest', coresPerWorker: 8, size: { kind: 'autoscale', minWorkers: 2, maxWorkers: 8 } });
    expect(await cache.clusterFor('prod', 79)).toBeNull();
    expect(gets()).toBe(3);

    nowMs += 300_000;
    await cache.clusterFor('prod', 77);
    expect(gets()).toBe(3);
    nowMs += 301_000;
    await cache.clusterFor('prod', 77);
    expect(gets()).toBe(4);

    expect(await cache.clusterFor('prod', 404404)).toBeNull();
    expect(await cache.clusterFor('prod', 404404)).toBeNull();
    expect(gets()).toBe(5);
    nowMs += 61_000;
    expect(await cache.clusterFor('prod', 404404)).toBeNull();
    expect(gets()).toBe(6);

    expect(await cache.clusterFor('elsewhere', 77)).toBeNull();
    expect(gets()).toBe(6);
  });
});
