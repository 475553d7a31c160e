/**
 * Whether each watched Databricks job had an active run at its last job-runs poll. Detect asks it
 * before judging a silent query `stalled`: a query is only stalled while its job runs (a job that
 * ended, successfully or not, explains the silence). One hash, job id → `running|notRunning` and
 * the poll time; answers older than `maxAgeMs` count as unknown.
 */
import type { Redis } from 'ioredis';
import type { StoreKeys } from './keys.js';

export interface JobLiveness {
  running: boolean;
  /** When the job-runs poll saw it, epoch ms. */
  atMs: number;
}

export class JobLivenessStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  /** Records what one job-runs poll saw. */
  async record(jobs: { jobId: string; running: boolean }[], atMs: number): Promise<void> {
    if (jobs.length === 0) return;
    const fields = jobs.flatMap((j) => [j.jobId, `${j.running ? 1 : 0}|${Math.round(atMs)}`]);
    await this.redis.hset(this.keys.jobLiveness(), ...fields);
  }

  /** The last answer for a job, or null when never seen or unreadable. */
  async get(jobId: string): Promise<JobLiveness | null> {
    const raw = await this.redis.hget(this.keys.jobLiveness(), jobId);
    const m = raw ? /^([01])\|(\d+)$/.exec(raw) : null;
    return m ? { running: m[1] === '1', atMs: Number(m[2]) } : null;
  }

  /**
   * True only when the job is known not to be running as of a poll at most `maxAgeMs` old;
   * unknown or stale answers are false (the query is judged as usual).
   */
  async isKnownStopped(jobId: string, nowMs: number, maxAgeMs: number): Promise<boolean> {
    const seen = await this.get(jobId);
    return seen !== null && !seen.running && nowMs - seen.atMs <= maxAgeMs;
  }
}
