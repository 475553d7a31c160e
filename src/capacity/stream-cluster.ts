/**
 * Which cluster a job's stream runs on, from `jobs/get`: the one cluster its tasks use (a shared job
 * cluster or a task's own `new_cluster`), with its size. A job whose tasks use several clusters, an
 * existing all-purpose cluster or serverless gives null: there is no one cluster spec to change.
 */
import type { ClusterSpec, Job } from '../databricks/wire-types.js';
import { coresOfNodeType } from './node-type-cores.js';

export type ClusterSize = { kind: 'fixed'; workers: number } | { kind: 'autoscale'; minWorkers: number; maxWorkers: number };

export interface StreamCluster {
  /** `job_cluster_key` of a shared job cluster, else null (a task's own cluster). */
  jobClusterKey: string | null;
  /** The task whose `new_cluster` it is, when it is not a shared job cluster. */
  taskKey: string | null;
  nodeTypeId: string | null;
  /** Cores per worker (node-type table); null when the type is unknown or an instance pool gives the nodes. */
  coresPerWorker: number | null;
  size: ClusterSize;
}

function sizeOf(spec: ClusterSpec): ClusterSize | null {
  const scale = spec.autoscale;
  if (scale && Number.isInteger(scale.max_workers) && scale.max_workers! >= 1) {
    const min = Number.isInteger(scale.min_workers) ? scale.min_workers! : 0;
    return { kind: 'autoscale', minWorkers: min, maxWorkers: scale.max_workers! };
  }
  if (Number.isInteger(spec.num_workers) && spec.num_workers! >= 0) return { kind: 'fixed', workers: spec.num_workers! };
  return null;
}

function clusterOf(spec: ClusterSpec | undefined, jobClusterKey: string | null, taskKey: string | null): StreamCluster | null {
  if (!spec) return null;
  const size = sizeOf(spec);
  if (!size) return null;
  const nodeTypeId = typeof spec.node_type_id === 'string' && spec.node_type_id ? spec.node_type_id : null;
  return { jobClusterKey, taskKey, nodeTypeId, coresPerWorker: coresOfNodeType(nodeTypeId), size };
}

export function streamClusterOf(job: Job): StreamCluster | null {
  const settings = job.settings ?? {};
  const jobClusters = new Map((settings.job_clusters ?? []).map((c) => [c.job_cluster_key, c.new_cluster]));
  const tasks = settings.tasks ?? [];
  if (tasks.length === 0) {
    const [only, ...more] = [...jobClusters];
    return only && more.length === 0 ? clusterOf(only[1], only[0], null) : null;
  }
  const used = new Map<string, StreamCluster | null>();
  for (const task of tasks) {
    if (task.job_cluster_key) {
      used.set(`job:${task.job_cluster_key}`, clusterOf(jobClusters.get(task.job_cluster_key), task.job_cluster_key, null));
    } else if (task.new_cluster) {
      used.set(`task:${task.task_key}`, clusterOf(task.new_cluster, null, task.task_key));
    } else {
      // An existing all-purpose cluster or serverless: no spec in the job to change.
      used.set(task.existing_cluster_id ? `existing:${task.existing_cluster_id}` : 'serverless', null);
    }
  }
  if (used.size !== 1) return null;
  return [...used.values()][0] ?? null;
}
