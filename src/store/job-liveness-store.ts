/**
 * Whether each watched Databricks job had an active run at its last job-runs poll. Detect asks it
 * before judging a silent query `stalled`: a query is only stalled while its job runs (a job that
 * ended, successfully or not, explains the silence). One hash, job id → `1|atMs|runStartedAtMs`
 * (running; the start is 0 when unknown) or `0|atMs`, with the poll time; `current` counts an answer
 * older than the caller's `maxAgeMs` as unknown. Each recording also removes
 * answers older than `retentionMs` (and unreadable ones): a watched job is refreshed at every poll,
 * so what ages out is a job no longer watched by any source. Age rather than "not in this poll"
 * because several job-runs sources (workspaces) share the hash.
 */
import type { Redis } from 'ioredis';
import type { StoreKeys } from './keys.js';
import { LuaScript } from './script.js';

export interface JobLivenessOptions {
  /** How long an answer is kept after its poll; older ones are removed at the next recording. @defaultValue 1 hour */
  retentionMs?: number;
}

// KEYS[1] liveness hash ; ARGV[1] oldest atMs kept, ARGV[2..] field, value pairs. Returns fields removed.
const RECORD = new LuaScript(`
for i = 2, #ARGV - 1, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
local oldest = tonumber(ARGV[1])
local all = redis.call('HGETALL', KEYS[1])
local removed = 0
for i = 1, #all, 2 do
  local at = tonumber(string.match(all[i + 1], '^[01]|(%d+)') or '')
  if (not at) or at < oldest then
    redis.call('HDEL', KEYS[1], all[i])
    removed = removed + 1
  end
end
return removed
`);

export interface JobLiveness {
  running: boolean;
  /** When the job-runs poll saw it, epoch ms. */
  atMs: number;
  /** Start of the active run, epoch ms; null when not running or unknown. */
  runStartedAtMs: number | null;
}

export class JobLivenessStore {
  readonly retentionMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
    options: JobLivenessOptions = {},
  ) {
    this.retentionMs = options.retentionMs ?? 3_600_000;
  }

  /**
   * Records what one job-runs poll saw and drops answers past the retention (jobs no longer
   * watched). Returns how many entries were dropped.
   */
  async record(jobs: { jobId: string; running: boolean; runStartedAtMs?: number | null }[], atMs: number): Promise<number> {
    const fields = jobs.flatMap((j) => [j.jobId, j.running ? `1|${Math.round(atMs)}|${Math.round(j.runStartedAtMs ?? 0)}` : `0|${Math.round(atMs)}`]);
    const removed = await RECORD.run(this.redis, [this.keys.jobLiveness()], [Math.round(atMs - this.retentionMs), ...fields]);
    return Number(removed);
  }

  /** The last answer for a job, or null when never seen or unreadable. */
  async get(jobId: string): Promise<JobLiveness | null> {
    const raw = await this.redis.hget(this.keys.jobLiveness(), jobId);
    // Answers recorded before the run start was kept read as `1|atMs` (start unknown).
    const m = raw ? /^([01])\|(\d+)(?:\|(\d+))?$/.exec(raw) : null;
    if (!m) return null;
    const started = m[1] === '1' && m[3] !== undefined ? Number(m[3]) : 0;
    return { running: m[1] === '1', atMs: Number(m[2]), runStartedAtMs: started > 0 ? started : null };
  }

  /** The last answer for a job when it is at most `maxAgeMs` old at `nowMs`; null otherwise (unknown). */
  async current(jobId: string, nowMs: number, maxAgeMs: number): Promise<JobLiveness | null> {
    const seen = await this.get(jobId);
    return seen !== null && nowMs - seen.atMs <= maxAgeMs ? seen : null;
  }
}
