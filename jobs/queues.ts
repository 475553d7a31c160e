/**
 * The four queues and their default job options. Producers (web, clock, workers enqueueing the
 * next step) share one `PipelineQueues`; every option is documented where declared.
 */
import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { QUEUE, type DetectJobData, type DigestJobData, type NotifyJobData, type PollJobData } from './queue-names.js';

export interface QueueSettings {
  /** ioredis connection options or instance. */
  connection: ConnectionOptions;
  /**
   * BullMQ key prefix. Braces make all queue keys one hash slot, which BullMQ needs on Redis Cluster.
   * @defaultValue '{sd}'
   */
  prefix?: string;
  /** Connection errors of the queues (they reconnect by themselves). @defaultValue ignored */
  onError?: (err: Error) => void;
}

/** Name of the backoff `cappedBackoff` computes (a custom BullMQ backoff type). */
export const CAPPED_BACKOFF = 'capped-exponential';

/** The same, capped at 5 seconds (detect: never blocks a query's detection for long). */
export const CAPPED_BACKOFF_FAST = 'capped-exponential-fast';

/** Longest wait between two attempts of a capped-backoff job, per backoff type. */
export const BACKOFF_CAP_MS: Record<string, number> = { [CAPPED_BACKOFF]: 300_000, [CAPPED_BACKOFF_FAST]: 5_000 };

/**
 * The workers' custom backoff: `delay` doubling per attempt, capped (5 minutes, or 5 seconds for the
 * fast type), ±30 % jitter (so a burst of failed jobs does not retry in step). `random` is
 * injectable for tests.
 */
export function cappedBackoff(attemptsMade: number, delayMs: number, random: () => number = Math.random, capMs = BACKOFF_CAP_MS[CAPPED_BACKOFF]!): number {
  const base = Math.min(delayMs * 2 ** Math.max(0, attemptsMade - 1), capMs);
  return Math.round(base * (1 + (random() * 2 - 1) * 0.3));
}

/** Queries per detect group job (a poll's slice, a sweep's slice). */
export const DETECT_GROUP_SIZE = 200;

/** Keep few completed jobs (they prove nothing later) and more failed ones (they need a look). */
const KEEP = { removeOnComplete: { count: 200, age: 3600 }, removeOnFail: { count: 2000, age: 7 * 24 * 3600 } };

export const DEFAULT_JOB_OPTIONS: Record<keyof typeof QUEUE, JobsOptions> = {
  // A poll that fails is replaced by the next tick; one quick retry covers a blip.
  poll: { ...KEEP, attempts: 2, backoff: { type: 'fixed', delay: 1000 } },
  // Conflicts (two runs on one query) and Redis blips retry fast, and never wait long: a detect job in
  // backoff holds the query's one pending detect (deduplication), so plain doubling (up to 7 h) blocked
  // detection for hours. 100 ms doubling capped at 5 s: 20 attempts ≈ 70 s in all.
  detect: { ...KEEP, attempts: 20, backoff: { type: CAPPED_BACKOFF_FAST, delay: 100 } },
  // Slack outages: keep trying for about an hour before giving up (1 s doubling, capped at 5 min:
  // 19 retries ≈ 58 min; see cappedBackoff). Permanent refusals fail at once (workers.ts).
  notify: { ...KEEP, attempts: 20, backoff: { type: CAPPED_BACKOFF, delay: 1000 } },
  digest: { ...KEEP, attempts: 10, backoff: { type: 'exponential', delay: 5000, jitter: 0.3 } },
};

export class PipelineQueues {
  readonly poll: Queue<PollJobData>;
  readonly detect: Queue<DetectJobData>;
  readonly notify: Queue<NotifyJobData>;
  readonly digest: Queue<DigestJobData>;
  readonly prefix: string;

  constructor(settings: QueueSettings) {
    this.prefix = settings.prefix ?? '{sd}';
    const common = { connection: settings.connection, prefix: this.prefix };
    this.poll = new Queue<PollJobData>(QUEUE.poll, { ...common, defaultJobOptions: DEFAULT_JOB_OPTIONS.poll });
    this.detect = new Queue<DetectJobData>(QUEUE.detect, { ...common, defaultJobOptions: DEFAULT_JOB_OPTIONS.detect });
    this.notify = new Queue<NotifyJobData>(QUEUE.notify, { ...common, defaultJobOptions: DEFAULT_JOB_OPTIONS.notify });
    this.digest = new Queue<DigestJobData>(QUEUE.digest, { ...common, defaultJobOptions: DEFAULT_JOB_OPTIONS.digest });
    const onError = settings.onError ?? (() => undefined);
    for (const queue of this.all()) queue.on('error', onError);
  }

  all(): Queue[] {
    return [this.poll, this.detect, this.notify, this.digest] as Queue[];
  }

  /** Waiting + delayed + active counts per queue (metrics, health, bench). */
  async depths(): Promise<Record<string, { waiting: number; active: number; delayed: number; failed: number }>> {
    const out: Record<string, { waiting: number; active: number; delayed: number; failed: number }> = {};
    for (const queue of this.all()) {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
      out[queue.name] = {
        waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        failed: counts.failed ?? 0,
      };
    }
    return out;
  }

  /**
   * Enqueues detect runs for groups of at most `groupSize` queries, one job per group: the sweep's
   * slices of every stream (`tick`: each is run and ticked even with nothing new). A query in a
   * group and in another pending job is run by both; the state version serializes them, and the
   * second finds nothing new.
   */
  async enqueueDetectGroups(queryIds: Iterable<string>, options: { tick?: boolean; groupSize?: number } = {}): Promise<number> {
    const ids = [...new Set(queryIds)];
    const size = options.groupSize ?? DETECT_GROUP_SIZE;
    const jobs = [];
    for (let i = 0; i < ids.length; i += size) {
      const group = ids.slice(i, i + size);
      jobs.push({ name: QUEUE.detect, data: { queryId: group[0]!, queryIds: group, ...(options.tick ? { tick: true } : {}) } });
    }
    if (jobs.length > 0) await this.detect.addBulk(jobs);
    return jobs.length;
  }

  /**
   * Enqueues one detect run per shard whose pending set the poll marked (`store.pendingDetect`); one
   * pending run per shard at most (a run marked meanwhile is kept to follow the active one). The job
   * names the shard's first query marked, which is what an older worker reads.
   */
  async enqueueDetectShards(shards: Map<number, string>): Promise<void> {
    const jobs = [...shards].map(([shard, firstQueryId]) => ({
      name: QUEUE.detect,
      data: { queryId: firstQueryId, shard },
      opts: { deduplication: { id: `detect-shard-${shard}`, keepLastIfActive: true } },
    }));
    if (jobs.length > 0) await this.detect.addBulk(jobs);
  }

  /** Enqueues a detect run for each query; one pending run per query at most (latest wins). */
  async enqueueDetect(queryIds: Iterable<string>): Promise<void> {
    const jobs = [...new Set(queryIds)].map((queryId) => ({
      name: QUEUE.detect,
      data: { queryId },
      opts: { deduplication: { id: `detect-${queryId}`, keepLastIfActive: true } },
    }));
    for (let i = 0; i < jobs.length; i += 500) await this.detect.addBulk(jobs.slice(i, i + 500));
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.all().map((q) => q.close()));
  }

  /** Removes every job and scheduler of these queues (tests only). */
  async obliterate(): Promise<void> {
    for (const queue of this.all()) await queue.obliterate({ force: true });
  }
}
