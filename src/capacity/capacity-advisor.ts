/**
 * The app-layer step between the store and the Slack renderers: an incident of a stream whose job is
 * known gets its capacity advice in workers of the job's cluster (worker-advice.ts). Everything else
 * (no capacity advice, no job, a cluster that cannot be read) comes back as it was.
 */
import type { Incident } from '../diagnosis/types.js';
import type { StreamInfo } from '../store/types.js';
import type { JobClusterCache } from './job-cluster-cache.js';
import { incidentInWorkers } from './worker-advice.js';

export interface CapacityAdvisor {
  /** The record with its incident's capacity advice in workers when the stream's job cluster is known. */
  inWorkers<T extends { incident: Incident }>(record: T, stream: Pick<StreamInfo, 'workspace' | 'jobId'> | null | undefined): Promise<T>;
}

export interface JobClusterAdvisorOptions {
  /**
   * Longest wait for a job's spec that is not cached yet; past it the advice keeps its wording and
   * the read goes on filling the cache for the next render (an alert is never held up by Databricks).
   * @defaultValue 2000
   */
  waitMs?: number;
  /** Told once when a lookup fails (the cluster is then unknown: advice keeps its wording). */
  logger?: { warn(obj: object, msg: string): void };
}

/** `promise`'s value, or `fallback` when it takes longer than `ms` or fails (`onError` is told). */
function within<T>(promise: Promise<T>, ms: number, fallback: T, onError: (err: unknown) => void): Promise<T> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(fallback), ms);
    timer.unref?.();
    // A rejection must be handled here: unhandled, it ends the worker (src/runtime/shutdown.ts).
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        onError(err);
        resolve(fallback);
      },
    );
  });
}

export function jobClusterAdvisor(cache: JobClusterCache, options: JobClusterAdvisorOptions = {}): CapacityAdvisor {
  let warned = false;
  const onError = (err: unknown) => {
    if (warned) return;
    warned = true;
    options.logger?.warn({ err: { message: (err as Error)?.message } }, 'capacity advice: the job cluster lookup failed; advice keeps its wording (logged once)');
  };
  return {
    async inWorkers(record, stream) {
      if (!record.incident.advice.some((advice) => advice.throughputFactor !== undefined)) return record;
      const jobId = stream?.jobId && /^\d{1,15}$/.test(stream.jobId) ? Number(stream.jobId) : null;
      if (jobId === null) return record;
      const cluster = await within(cache.clusterFor(stream?.workspace ?? null, jobId), options.waitMs ?? 2_000, null, onError);
      if (!cluster) return record;
      const incident = incidentInWorkers(record.incident, cluster);
      return incident === record.incident ? record : { ...record, incident };
    },
  };
}

/** Leaves every record as it is (no Databricks to read job settings from). */
export const keepWording: CapacityAdvisor = { inWorkers: async (record) => record };
