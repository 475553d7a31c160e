import { describe, expect, it } from 'vitest';
import { capacityAdviceInWorkers, coresOfNodeType, incidentInWorkers, JobClusterCache, jobClusterAdvisor, streamClusterOf, workersNeeded, type StreamCluster } from '../../src/capacity/index.js';
import type { Advice, Incident } from '../../src/diagnosis/types.js';

// The engine's capacity advice as it reads today (src/diagnosis/causes/lag-causes.ts).
const ENGINE: Advice = {
  text: 'Give the query about 1.31× its current throughput (load factor 1.14 plus headroom to drain the backlog): more or larger workers. A longer trigger interval will not help: batches already run back to back, and a longer interval only adds idle time.',
  throughputFactor: 1.311,
  loadFactor: 1.14,
};

const fixed = (workers: number, nodeTypeId: string | null = 'm5.2xlarge'): StreamCluster => ({
  jobClusterKey: 'main',
  taskKey: null,
  nodeTypeId,
  coresPerWorker: coresOfNodeType(nodeTypeId),
  size: { kind: 'fixed', workers },
});
const autoscale = (min: number, max: number, nodeTypeId: string | null = 'Standard_D8s_v3'): StreamCluster => ({
  jobClusterKey: 'main',
  taskKey: null,
  nodeTypeId,
  coresPerWorker: coresOfNodeType(nodeTypeId),
  size: { kind: 'autoscale', minWorkers: min, maxWorkers: max },
});

describe('workers from the throughput factor', () => {
  it.each([
    { name: 'fixed 4 × 1.311', cluster: fixed(4), factor: 1.311, expected: { setting: 'num_workers', from: 4, to: 6 } },
    { name: 'fixed 10 × 1.2 exactly (no extra worker from float noise)', cluster: fixed(10), factor: 1.2, expected: { setting: 'num_workers', from: 10, to: 12 } },
    { name: 'fixed 20 × 1.05 exactly', cluster: fixed(20), factor: 1.05, expected: { setting: 'num_workers', from: 20, to: 21 } },
    { name: 'fixed 1 × 1.05 rounds up to a whole worker', cluster: fixed(1), factor: 1.05, expected: { setting: 'num_workers', from: 1, to: 2 } },
    { name: 'autoscale max 8 × 1.5', cluster: autoscale(2, 8), factor: 1.5, expected: { setting: 'autoscale.max_workers', from: 8, to: 12 } },
    { name: 'factor 1 asks for nothing', cluster: fixed(4), factor: 1, expected: null },
    { name: 'factor below 1 asks for nothing', cluster: autoscale(2, 8), factor: 0.8, expected: null },
    { name: 'single node (0 workers) keeps the wording', cluster: fixed(0), factor: 1.5, expected: null },
    { name: 'not a number', cluster: fixed(4), factor: Number.NaN, expected: null },
  ])('$name', ({ cluster, factor, expected }) => {
    expect(workersNeeded(factor, cluster)).toEqual(expected);
  });
});

describe('capacity advice in workers', () => {
  it('fixed size with a known node type: workers, cores and the figure it came from; the trigger sentence stays', () => {
    const advice = capacityAdviceInWorkers(ENGINE, fixed(4))!;
    expect(advice.text).toBe(
      'Raise `num_workers` from 4 to 6 on job cluster `main` (8 cores each, 32 → 48 cores): the query needs about 1.31× its current throughput (load factor 1.14 plus headroom to drain the backlog), and 4 × 1.31 = 5.24, rounded up. A longer trigger interval will not help: batches already run back to back, and a longer interval only adds idle time.',
    );
    expect(advice).toMatchObject({ setting: 'num_workers', value: '6', throughputFactor: 1.311, loadFactor: 1.14 });
  });

  it('a catch-up\'s purpose stays in front: what the workers are for', () => {
    const catchUp: Advice = {
      text: 'To drain within 30m instead of about 4h 24m, give the query about 1.3× its current throughput: more or larger workers. It processes 788 rows/s while 757 rows/s arrive, so only 30.7 rows/s are left over to drain the backlog.',
      throughputFactor: 1.3,
    };
    expect(capacityAdviceInWorkers(catchUp, fixed(4))!.text).toBe(
      'To drain within 30m instead of about 4h 24m, raise `num_workers` from 4 to 6 on job cluster `main` (8 cores each, 32 → 48 cores): the query needs about 1.3× its current throughput, and 4 × 1.3 = 5.2, rounded up. It processes 788 rows/s while 757 rows/s arrive, so only 30.7 rows/s are left over to drain the backlog.',
    );
  });

  it('autoscale: raise the max', () => {
    const advice = capacityAdviceInWorkers({ ...ENGINE, throughputFactor: 1.5, loadFactor: 1.3 }, autoscale(2, 8))!;
    expect(advice.text).toMatch(/^Raise autoscale max from 8 to 12 workers on job cluster `main` \(8 cores each, at most 64 → 96 cores\): the query needs about 1\.5× its current throughput \(load factor 1\.30 plus headroom to drain the backlog\), and 8 × 1\.5 = 12, rounded up\. A longer trigger/);
    expect(advice).toMatchObject({ setting: 'autoscale.max_workers', value: '12' });
  });

  it('unknown node type: workers without cores', () => {
    const advice = capacityAdviceInWorkers(ENGINE, fixed(4, 'x9.mega'))!;
    expect(advice.text).toMatch(/^Raise `num_workers` from 4 to 6 on job cluster `main`: the query needs/);
    expect(advice.text).not.toMatch(/cores/);
    const pooled = capacityAdviceInWorkers(ENGINE, { ...fixed(4, null), jobClusterKey: null, taskKey: 'ingest' })!;
    expect(pooled.text).toMatch(/^Raise `num_workers` from 4 to 6 on the cluster of task `ingest`: /);
  });

  it('factor ≤ 1, single node and advice without a factor keep the wording', () => {
    expect(capacityAdviceInWorkers({ ...ENGINE, throughputFactor: 0.9 }, fixed(4))).toBeNull();
    expect(capacityAdviceInWorkers(ENGINE, fixed(0))).toBeNull();
    expect(capacityAdviceInWorkers({ text: 'Raise maxOffsetsPerTrigger from 1000 to 2000.', setting: 'maxOffsetsPerTrigger', value: '2000' }, fixed(4))).toBeNull();
  });

  it('only capacity items of an incident change', () => {
    const other: Advice = { text: 'Raise maxOffsetsPerTrigger from 1000 to 2000.', setting: 'maxOffsetsPerTrigger', value: '2000' };
    const incident = { advice: [other, ENGINE] } as Incident;
    const converted = incidentInWorkers(incident, fixed(4));
    expect(converted.advice[0]).toBe(other);
    expect(converted.advice[1]!.setting).toBe('num_workers');
    const untouched = { advice: [other] } as Incident;
    expect(incidentInWorkers(untouched, fixed(4))).toBe(untouched);
  });
});

describe('cores per node type', () => {
  it.each([
    ['i3.xlarge', 4],
    ['m5.2xlarge', 8],
    ['r6gd.16xlarge', 64],
    ['c5.9xlarge', 36],
    ['m5.large', 2],
    ['Standard_DS3_v2', 4],
    ['Standard_DS13_v2', 8],
    ['Standard_D4s_v3', 4],
    ['Standard_E16ds_v4', 16],
    ['Standard_F8s', 8],
    ['Standard_L8s_v3', 8],
    ['n2-highmem-4', 4],
    ['n1-standard-16', 16],
    ['n2d-standard-8-lssd', 8],
    ['x9.mega', null],
    ['p3.2xlarge', null],
    ['a2-highgpu-1g', null],
    ['', null],
  ])('%s → %s', (nodeType, cores) => {
    expect(coresOfNodeType(nodeType)).toBe(cores);
  });
});

describe('the stream cluster of a job (jobs/get)', () => {
  const base = { job_id: 77, settings: { name: 'orders' } };
  it('one task on a shared job cluster with a fixed size', () => {
    const cluster = streamClusterOf({
      ...base,
      settings: {
        tasks: [{ task_key: 'stream', job_cluster_key: 'main' }],
        job_clusters: [{ job_cluster_key: 'main', new_cluster: { node_type_id: 'i3.2xlarge', num_workers: 4 } }],
      },
    });
    expect(cluster).toEqual({ jobClusterKey: 'main', taskKey: null, nodeTypeId: 'i3.2xlarge', coresPerWorker: 8, size: { kind: 'fixed', workers: 4 } });
  });
  it('a task with its own autoscaling cluster', () => {
    const cluster = streamClusterOf({ ...base, settings: { tasks: [{ task_key: 'ingest', new_cluster: { node_type_id: 'n2-highmem-8', autoscale: { min_workers: 2, max_workers: 8 } } }] } });
    expect(cluster).toMatchObject({ jobClusterKey: null, taskKey: 'ingest', coresPerWorker: 8, size: { kind: 'autoscale', minWorkers: 2, maxWorkers: 8 } });
  });
  it('two tasks on one job cluster is that cluster', () => {
    const cluster = streamClusterOf({
      ...base,
      settings: {
        tasks: [
          { task_key: 'a', job_cluster_key: 'main' },
          { task_key: 'b', job_cluster_key: 'main' },
        ],
        job_clusters: [{ job_cluster_key: 'main', new_cluster: { node_type_id: 'i3.xlarge', num_workers: 2 } }],
      },
    });
    expect(cluster?.jobClusterKey).toBe('main');
  });
  it('several clusters, an existing cluster, serverless or no size: unknown', () => {
    const twoClusters = {
      tasks: [
        { task_key: 'a', job_cluster_key: 'one' },
        { task_key: 'b', job_cluster_key: 'two' },
      ],
      job_clusters: [
        { job_cluster_key: 'one', new_cluster: { num_workers: 2 } },
        { job_cluster_key: 'two', new_cluster: { num_workers: 3 } },
      ],
    };
    expect(streamClusterOf({ ...base, settings: twoClusters })).toBeNull();
    expect(streamClusterOf({ ...base, settings: { tasks: [{ task_key: 'a', existing_cluster_id: '0101-abc' }] } })).toBeNull();
    expect(streamClusterOf({ ...base, settings: { tasks: [{ task_key: 'a', environment_key: 'default' }] } })).toBeNull();
    expect(streamClusterOf({ ...base, settings: { tasks: [{ task_key: 'a', new_cluster: { node_type_id: 'i3.xlarge' } }] } })).toBeNull();
    expect(streamClusterOf({ job_id: 1 })).toBeNull();
  });
});

describe('a malformed jobs/get answer', () => {
  it('reads null, [null] and other wrong shapes as "cluster unknown", skipping a malformed entry', () => {
    for (const job of [null, 1, 'x', { settings: null }, { settings: { tasks: null } }, { settings: { tasks: [null] } }, { settings: { tasks: 'x', job_clusters: [null, 1] } }]) {
      expect(streamClusterOf(job as never), JSON.stringify(job)).toBeNull();
    }
    // A null entry beside a good one is skipped; the good one is still read.
    const cluster = streamClusterOf({
      job_id: 1,
      settings: {
        tasks: [null, { task_key: 'a', job_cluster_key: 'main' }],
        job_clusters: [null, { job_cluster_key: 'main', new_cluster: { node_type_id: 'i3.xlarge', num_workers: 2, autoscale: null } }],
      },
    } as never);
    expect(cluster).toMatchObject({ jobClusterKey: 'main', size: { kind: 'fixed', workers: 2 } });
  });

  it('never rejects the advisor nor stays cached for 10 minutes; the failure is logged once', async () => {
    let nowMs = 0;
    const answers: unknown[] = [null, { settings: { tasks: [null] } }];
    let reads = 0;
    const jobs = {
      getJob: async () => {
        reads += 1;
        if (reads === 3) throw new Error('boom'); // a read that fails outright
        return (reads <= answers.length ? answers[reads - 1] : { settings: { tasks: [{ task_key: 'a', new_cluster: { node_type_id: 'i3.xlarge', num_workers: 2 } }] } }) as never;
      },
    };
    const warnings: string[] = [];
    const logger = { warn: (_obj: object, msg: string) => void warnings.push(msg) };
    const cache = new JobClusterCache({ jobsFor: () => jobs, now: () => nowMs, logger: logger as never });
    // A cache whose promise rejects (what a throwing parser used to leave behind) must not reject the advisor.
    const rejecting = { clusterFor: () => Promise.reject(new TypeError("Cannot read properties of null (reading 'settings')")) } as unknown as JobClusterCache;
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const advisorLogs: string[] = [];
      const failing = jobClusterAdvisor(rejecting, { waitMs: 100, logger: { warn: (_o: object, msg: string) => void advisorLogs.push(msg) } });
      const record = { incident: { advice: [{ throughputFactor: 1.5 }] } as unknown as Incident };
      expect(await failing.inWorkers(record, { jobId: '42', workspace: undefined })).toBe(record);
      expect(await failing.inWorkers(record, { jobId: '42', workspace: undefined })).toBe(record);
      expect(advisorLogs).toHaveLength(1);

      expect(await cache.clusterFor(null, 42)).toBeNull(); // null answer
      nowMs += 1_000;
      expect(await cache.clusterFor(null, 42)).toBeNull(); // cached (a spec that says "unknown")
      expect(reads).toBe(1);
      nowMs += 600_001;
      expect(await cache.clusterFor(null, 42)).toBeNull(); // [null] tasks
      nowMs += 600_001;
      expect(await cache.clusterFor(null, 42)).toBeNull(); // the read fails: kept a minute, not 10
      expect(warnings).toHaveLength(1);
      nowMs += 60_001;
      expect(await cache.clusterFor(null, 42)).toMatchObject({ taskKey: 'a', size: { kind: 'fixed', workers: 2 } });
      expect(reads).toBe(4);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});
