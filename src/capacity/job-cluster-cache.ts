/**
 * The cluster each job's stream runs on, read with `jobs/get` and kept for a while: alerts and
 * `/stream tune` ask on every render, the job's settings change rarely. A failed read (no access,
 * job deleted, Databricks down) is remembered briefly too and gives null: advice keeps its wording.
 */
import type { Job } from '../databricks/wire-types.js';
import type { Logger } from '../observability/logger.js';
import { streamClusterOf, type StreamCluster } from './stream-cluster.js';

export interface JobReader {
  getJob(jobId: number): Promise<Job>;
}

export interface JobClusterCacheOptions {
  /** The Jobs API of a workspace, by the name streams carry (`StreamInfo.workspace`); null when unknown. */
  jobsFor(workspace: string | null): JobReader | null;
  /** How long a job's cluster spec is kept. @defaultValue 600000 (10 min) */
  ttlMs?: number;
  /** How long a failed read is kept before asking again. @defaultValue 60000 */
  failureTtlMs?: number;
  /** @defaultValue Date.now */
  now?: () => number;
  logger?: Logger;
}

interface Entry {
  value: Promise<StreamCluster | null>;
  expiresAt: number;
}

export class JobClusterCache {
  private readonly entries = new Map<string, Entry>();
  private readonly readerIds = new Map<JobReader, number>();
  private readonly now: () => number;

  constructor(private readonly options: JobClusterCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The cluster of a job's stream, or null when it is unknown (see streamClusterOf) or cannot be read. */
  clusterFor(workspace: string | null, jobId: number): Promise<StreamCluster | null> {
    const jobs = this.options.jobsFor(workspace);
    if (!jobs) return Promise.resolve(null);
    // Keyed by the workspace's client, so two names for one workspace share its entries.
    let readerId = this.readerIds.get(jobs);
    if (readerId === undefined) this.readerIds.set(jobs, (readerId = this.readerIds.size + 1));
    const key = `${readerId}:${jobId}`;
    const nowMs = this.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > nowMs) return cached.value;
    const entry: Entry = { value: Promise.resolve(null), expiresAt: nowMs + (this.options.ttlMs ?? 600_000) };
    // Any failure, the read's or the answer's (streamClusterOf is tolerant, but a throw here must
    // never leave a rejected promise cached), is kept only failureTtlMs and gives null.
    entry.value = jobs
      .getJob(jobId)
      .then((job) => streamClusterOf(job))
      .catch((err: unknown) => {
        entry.expiresAt = this.now() + (this.options.failureTtlMs ?? 60_000);
        this.options.logger?.warn({ err: { message: (err as Error)?.message, code: (err as { code?: string })?.code }, jobId, workspace }, 'could not read the job cluster spec; capacity advice keeps its wording');
        return null;
      });
    // Bounded: one entry per watched job, expired ones dropped when a new one comes in.
    for (const [k, e] of this.entries) if (e.expiresAt <= nowMs) this.entries.delete(k);
    this.entries.set(key, entry);
    return entry.value;
  }
}
