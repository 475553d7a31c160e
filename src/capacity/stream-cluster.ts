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

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
/** The entries of a list that are objects: a malformed entry is skipped, as the progress parser skips a malformed field. */
const objectsIn = <T>(value: unknown): T[] => (Array.isArray(value) ? (value.filter(isObject) as T[]) : []);
const textOf = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);

function sizeOf(spec: ClusterSpec): ClusterSize | null {
  const scale = isObject(spec.autoscale) ? (spec.autoscale as ClusterSpec['autoscale']) : undefined;
  if (scale && Number.isInteger(scale.max_workers) && scale.max_workers! >= 1) {
    const min = Number.isInteger(scale.min_workers) ? scale.min_workers! : 0;
    return { kind: 'autoscale', minWorkers: min, maxWorkers: scale.max_workers! };
  }
  if (Number.isInteger(spec.num_workers) && spec.num_workers! >= 0) return { kind: 'fixed', workers: spec.num_workers! };
  return null;
}

function clusterOf(spec: unknown, jobClusterKey: string | null, taskKey: string | null): StreamCluster | null {
  if (!isObject(spec)) return null;
  const size = sizeOf(spec as ClusterSpec);
  if (!size) return null;
  const nodeTypeId = textOf(spec.node_type_id);
  return { jobClusterKey, taskKey, nodeTypeId, coresPerWorker: coresOfNodeType(nodeTypeId), size };
}

/**
 * Reads `jobs/get`'s answer tolerantly (it is untrusted JSON, whatever `Job` says): a field of the
 * wrong type is read as absent and a malformed list entry (`tasks: [null]`) is skipped, so a strange
 * answer gives null ("cluster unknown"), never a throw.
 */
export function streamClusterOf(job: Job | unknown): StreamCluster | null {
  const settings = isObject(job) && isObject(job.settings) ? job.settings : {};
  const jobClusters = new Map<string, unknown>();
  for (const cluster of objectsIn<Record<string, unknown>>(settings.job_clusters)) {
    const key = textOf(cluster.job_cluster_key);
    if (key) jobClusters.set(key, cluster.new_cluster);
  }
  const tasks = objectsIn<Record<string, unknown>>(settings.tasks);
  if (tasks.length === 0) {
    const [only, ...more] = [...jobClusters];
    return only && more.length === 0 ? clusterOf(only[1], only[0], null) : null;
  }
  const used = new Map<string, StreamCluster | null>();
  for (const task of tasks) {
    const jobClusterKey = textOf(task.job_cluster_key);
    const existing = textOf(task.existing_cluster_id);
    if (jobClusterKey) {
      used.set(`job:${jobClusterKey}`, clusterOf(jobClusters.get(jobClusterKey), jobClusterKey, null));
    } else if (isObject(task.new_cluster)) {
      const taskKey = textOf(task.task_key);
      used.set(`task:${taskKey ?? ''}`, clusterOf(task.new_cluster, null, taskKey));
    } else {
      // An existing all-purpose cluster or serverless: no spec in the job to change.
      used.set(existing ? `existing:${existing}` : 'serverless', null);
    }
  }
  if (used.size !== 1) return null;
  return [...used.values()][0] ?? null;
}
