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

export function jobClusterAdvisor(cache: JobClusterCache): CapacityAdvisor {
  return {
    async inWorkers(record, stream) {
      if (!record.incident.advice.some((advice) => advice.throughputFactor !== undefined)) return record;
      const jobId = stream?.jobId && /^\d{1,18}$/.test(stream.jobId) ? Number(stream.jobId) : null;
      if (jobId === null) return record;
      const cluster = await cache.clusterFor(stream?.workspace ?? null, jobId);
      if (!cluster) return record;
      const incident = incidentInWorkers(record.incident, cluster);
      return incident === record.incident ? record : { ...record, incident };
    },
  };
}

/** Leaves every record as it is (no Databricks to read job settings from). */
export const keepWording: CapacityAdvisor = { inWorkers: async (record) => record };
