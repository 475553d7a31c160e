/**
 * The clock's schedules as BullMQ job schedulers. BullMQ produces exactly one job per tick per
 * scheduler, however many clock processes upsert it, so a second clock started by mistake changes
 * nothing; a schedule already as wanted is left alone (`ensureScheduler`).
 */
import { DEFAULTS } from '../src/config/defaults.js';
import { POLL_JOB } from './queue-names.js';
import type { PipelineQueues } from './queues.js';
import { ConfigError } from '../src/util/errors.js';

export interface ScheduleSettings {
  /** Source ids to poll. */
  sourceIds: string[];
  /** Poll cadence per source. @defaultValue 10000 */
  pollEveryMs?: number;
  /** Detect tick for every stream (stalled detection). @defaultValue 60000 */
  sweepEveryMs?: number;
  /** Daily digest time, `HH:MM`. @defaultValue '09:00' */
  digestAt?: string;
  /** IANA time zone of `digestAt`. @defaultValue 'UTC' */
  timeZone?: string;
  /** Turn the digest off. @defaultValue true */
  digest?: boolean;
}

export const SCHEDULER_IDS = {
  poll: (sourceId: string) => `poll-${sourceId}`,
  sweep: 'sweep',
  digest: 'digest-daily',
} as const;

/**
 * `HH:MM` → a cron pattern firing daily at that time and an hour later (not past midnight): where
 * the clocks jump over the digest time (a DST change at midnight, as in Santiago or Havana), cron has
 * no fire that day at all, so the hour after stands in. The fan-out runs once per day whichever
 * fires (`digestDayMarker`).
 */
export function dailyCron(at: string): string {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(at.trim());
  if (!m) throw new ConfigError([`digest time "${at}" is not HH:MM (24-hour), e.g. "09:00"`], `streamdoctor_config_invalid: digest time "${at}" is not HH:MM (24-hour), e.g. "09:00"`);
  const hour = Number(m[1]);
  return `0 ${Number(m[2])} ${hour < 23 ? `${hour},${hour + 1}` : hour} * * *`;
}

type SchedulerQueue = PipelineQueues['poll'] | PipelineQueues['digest'];
type Repeat = { every: number } | { pattern: string; tz: string };

/**
 * Upserts a scheduler unless it is already as wanted with its next job in place. An upsert replaces
 * the scheduler's next job even when it is due and waiting for a worker, and schedules the one after
 * the clock's now: re-upserting the digest every minute would skip a day's digest whenever the
 * workers were busy or down at its time (or the clock's host ran a few seconds fast).
 */
async function ensureScheduler(queue: SchedulerQueue, id: string, repeat: Repeat, template: { name: string; data: object }): Promise<void> {
  const current = await queue.getJobScheduler(id);
  const same = current !== undefined && ('every' in repeat ? current.every === repeat.every : current.pattern === repeat.pattern && current.tz === repeat.tz);
  // A scheduler whose next job is gone (deleted by hand, an evicted key) is upserted to make one.
  if (same && current.next !== undefined && (await queue.getJob(`repeat:${id}:${current.next}`))) return;
  await (queue as PipelineQueues['poll']).upsertJobScheduler(id, repeat, template as never);
}

/** Creates or updates every schedule, and removes poll schedules of sources no longer configured. */
export async function upsertSchedules(queues: PipelineQueues, settings: ScheduleSettings): Promise<void> {
  const every = settings.pollEveryMs ?? DEFAULTS.pollSeconds * 1000;
  for (const sourceId of settings.sourceIds) {
    await ensureScheduler(queues.poll, SCHEDULER_IDS.poll(sourceId), { every }, { name: POLL_JOB.poll, data: { sourceId } });
  }
  const wanted = new Set(settings.sourceIds.map(SCHEDULER_IDS.poll));
  for (const scheduler of await queues.poll.getJobSchedulers(0, -1)) {
    if (scheduler.key.startsWith('poll-') && !wanted.has(scheduler.key)) await queues.poll.removeJobScheduler(scheduler.key);
  }
  await ensureScheduler(queues.poll, SCHEDULER_IDS.sweep, { every: settings.sweepEveryMs ?? 60_000 }, { name: POLL_JOB.sweep, data: {} });
  if (settings.digest ?? true) {
    await ensureScheduler(
      queues.digest,
      SCHEDULER_IDS.digest,
      { pattern: dailyCron(settings.digestAt ?? '09:00'), tz: settings.timeZone ?? 'UTC' },
      { name: 'all', data: { kind: 'all' } },
    );
  } else {
    await queues.digest.removeJobScheduler(SCHEDULER_IDS.digest);
  }
}
