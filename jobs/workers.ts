/**
 * BullMQ workers for the four queues. Slack back-pressure is translated into BullMQ terms here:
 * a busy message key or channel moves the job to delayed (no attempt spent), and so does a Slack 429
 * until its Retry-After (its method, or its channel, is held for every process meanwhile: the rest
 * of the queue goes on, nothing is dropped); a
 * permanent refusal (channel_not_found, is_archived, invalid_blocks, …) fails the job at once
 * (UnrecoverableError). Retries back off 1 s doubling, capped at 5 min (about an hour in all).
 */
import { DelayedError, UnrecoverableError, Worker, type ConnectionOptions, type Job, type Processor } from 'bullmq';
import type { Logger } from '../src/observability/logger.js';
import { errorKind, type PipelineMetrics } from '../src/observability/metrics.js';
import { createDetectProcessor, type DetectDeps } from './detect-processor.js';
import { createDigestProcessor, type DigestDeps } from './digest-processor.js';
import { ChannelBusyError, MessageBusyError } from '../src/slack/gateway/message-poster.js';
import { createNotifyProcessor, existingAlertOf, type NotifyDeps } from './notify-processor.js';
import { createPollProcessor, type PollDeps } from './poll-processor.js';
import { QUEUE } from './queue-names.js';
import { BACKOFF_CAP_MS, cappedBackoff } from './queues.js';
import { SlackRateLimitedError } from '../src/slack/gateway/slack-chat.js';
import { stageCpu } from '../src/util/stage-cpu.js';

export interface WorkerSettings {
  /** Connection for the workers' blocking commands (maxRetriesPerRequest is forced to null). */
  connection: ConnectionOptions;
  /** BullMQ prefix; must match the queues'. @defaultValue '{sd}' */
  prefix?: string;
  /**
   * Jobs in flight per worker. Detect is CPU-bound and shares the event loop with notify: a few
   * in flight keep Redis busy enough, while many make every notify await queue behind them
   * (bench:pipeline: first posts 1.1 s → 0.4 s after commit, p50, going from 32 to 8).
   * @defaultValue poll 4, detect 8, notify 16, digest 2
   */
  concurrency?: Partial<Record<keyof typeof QUEUE, number>>;
  /**
   * Job lock lifetime; a worker that dies loses its jobs to another after about this long.
   * @defaultValue 15000
   */
  lockDurationMs?: number;
  /** How often workers look for stalled jobs. @defaultValue 5000 */
  stalledIntervalMs?: number;
  /** Which queues this process works on. @defaultValue all four */
  queues?: (keyof typeof QUEUE)[];
}

export type PipelineDeps = PollDeps & DetectDeps & NotifyDeps & DigestDeps;

export interface PipelineWorkers {
  workers: Worker[];
  close(force?: boolean): Promise<void>;
}

/** Slack errors no retry can fix, with what to do about each. */
const PERMANENT_HINT: Record<string, string> = {
  channel_not_found: 'the channel was deleted, or it is private and the app is not in it: fix the route or invite the app',
  is_archived: 'the channel is archived: route its streams elsewhere',
  invalid_blocks: 'the message was refused as malformed: report it',
  invalid_blocks_format: 'the message was refused as malformed: report it',
  msg_too_long: 'the message is too long: report it',
  no_text: 'the message was empty: report it',
  cant_update_message: 'the message belongs to another app',
  // Not message_not_found: the poster posts a message deleted in Slack anew, and one that escapes it
  // (deleted again while being adopted) is posted anew by the retry.
};

/**
 * What to do about a permanent refusal. An incident whose alert already lives in the channel keeps it
 * there (a fixed route moves only incidents not shown yet), so for a channel gone that is what to say.
 */
function permanentHint(error: string, existing: { channel: string; incidentId: string } | null): string {
  if (existing && (error === 'channel_not_found' || error === 'is_archived')) {
    return `incident ${existing.incidentId} already has its alert in ${existing.channel}, so its updates go there; fixing the route does not move it (only incidents not shown yet follow a new route): restore the app's access to ${existing.channel}, or its updates are not delivered`;
  }
  return PERMANENT_HINT[error] ?? 'see the Slack error';
}

/** The Slack error code of a permanent refusal, or null. */
export function permanentSlackError(err: unknown): string | null {
  const e = err as { code?: string; data?: { error?: string } } | null;
  if (e?.code !== 'slack_webapi_platform_error') return null;
  const error = e.data?.error ?? '';
  return Object.hasOwn(PERMANENT_HINT, error) ? error : null;
}

function notifyBackPressure(processor: Processor, metrics: PipelineMetrics, logger: Logger): Processor {
  return async (job: Job, token?: string) => {
    try {
      return await processor(job, token);
    } catch (err) {
      if (err instanceof MessageBusyError || err instanceof ChannelBusyError) {
        const wait = err instanceof ChannelBusyError ? err.waitMs : 250 + Math.floor(Math.random() * 250);
        await job.moveToDelayed(Date.now() + wait, token);
        throw new DelayedError();
      }
      if (err instanceof SlackRateLimitedError) {
        // Slack budgets per method, and chat.postMessage per channel: the job waits its Retry-After
        // (MethodCooldownChat holds the method, the poster the channel, for every process meanwhile),
        // the queue goes on with the jobs that need other methods or channels.
        metrics.slackRateLimited.inc();
        // An API error only when Slack answered it (not a call held back while its method cools down).
        if (!err.held) metrics.apiErrors.inc({ service: 'slack', kind: 'slack_rate_limited' });
        await job.moveToDelayed(Date.now() + err.retryAfterMs + Math.floor(Math.random() * 1000), token);
        throw new DelayedError();
      }
      if (err && typeof err === 'object' && 'code' in err && String((err as { code: unknown }).code).startsWith('slack_')) {
        metrics.apiErrors.inc({ service: 'slack', kind: String((err as { code: unknown }).code) });
      }
      const permanent = permanentSlackError(err);
      if (permanent) {
        // Retrying cannot help (the channel is gone, the message is refused): fail now, say why.
        const existing = existingAlertOf(err);
        logger.warn({ jobId: job.id, slackError: permanent, ...(existing ? { incidentId: existing.incidentId, channel: existing.channel } : {}) }, 'Slack refused for good; not retrying');
        throw new UnrecoverableError(`streamdoctor_slack_permanent: Slack answered ${permanent}; retrying cannot help (${permanentHint(permanent, existing)})`);
      }
      throw err;
    }
  };
}

/**
 * Times a job may lose its worker mid-run before BullMQ gives it up ("stalled more than allowable
 * limit"). A worker that dies stalls every job it held (notify holds up to 16), so a run of crashes
 * stalls jobs that did not cause them; notify is idempotent (claims, message versions) and giving
 * it up loses an alert, so it gets more room. A job that kills its worker every time still ends.
 */
const MAX_STALLS: Record<keyof typeof QUEUE, number> = { poll: 3, detect: 3, notify: 10, digest: 3 };

/**
 * The workers' 'error' events, logged at most once per error kind (code, else name) per interval
 * with how many were folded in: during a Redis outage every worker repeats the same connection
 * error many times a second, which would bury every other line.
 */
export function throttledWorkerErrors(logger: Pick<Logger, 'error'>, intervalMs = 30_000, now: () => number = Date.now): (queue: string, err: Error) => void {
  const last = new Map<string, { at: number; folded: number }>();
  return (queue, err) => {
    const kind = errorKind(err);
    const at = now();
    const seen = last.get(kind);
    if (seen && at - seen.at < intervalMs) {
      seen.folded += 1;
      return;
    }
    const folded = seen?.folded ?? 0;
    if (!seen && last.size >= 100) last.clear(); // bounded: kinds are few; a flood of new ones only resets
    last.set(kind, { at, folded: 0 });
    logger.error({ queue, err, kind, ...(folded > 0 ? { folded } : {}) }, folded > 0 ? `worker error (and ${folded} more of this kind in the last ${Math.round((at - seen!.at) / 1000)} s)` : 'worker error');
  };
}

export function createPipelineWorkers(deps: PipelineDeps, settings: WorkerSettings): PipelineWorkers {
  const prefix = settings.prefix ?? '{sd}';
  const concurrency = { poll: 4, detect: 8, notify: 16, digest: 2, ...settings.concurrency };
  const common = {
    connection: settings.connection,
    prefix,
    lockDuration: settings.lockDurationMs ?? 15_000,
    stalledInterval: settings.stalledIntervalMs ?? 5_000,
    settings: { backoffStrategy: (attemptsMade: number, type?: string, _err?: Error, job?: { opts?: { backoff?: unknown } }) => {
      const delay = Number((job?.opts?.backoff as { delay?: number } | undefined)?.delay ?? 1000);
      const cap = type ? BACKOFF_CAP_MS[type] : undefined;
      return cap !== undefined ? cappedBackoff(attemptsMade, delay, Math.random, cap) : -1;
    } },
  };
  const workerError = throttledWorkerErrors(deps.logger);
  const wanted = new Set(settings.queues ?? (Object.keys(QUEUE) as (keyof typeof QUEUE)[]));
  const workers: Worker[] = [];
  const add = (name: keyof typeof QUEUE, processor: Processor) => {
    if (!wanted.has(name)) return;
    const worker = new Worker(QUEUE[name], processor, { ...common, concurrency: concurrency[name], maxStalledCount: MAX_STALLS[name] });
    worker.on('failed', (job, err) => {
      if (err instanceof DelayedError) return;
      deps.logger.warn({ queue: name, jobId: job?.id, attemptsMade: job?.attemptsMade, err }, 'job failed');
    });
    worker.on('error', (err) => workerError(name, err));
    workers.push(worker);
  };
  add('poll', createPollProcessor(deps) as Processor);
  add('detect', createDetectProcessor(deps) as Processor);
  const notify = createNotifyProcessor(deps) as Processor;
  add('notify', notifyBackPressure((job, token) => stageCpu.around('notify', () => notify(job, token)), deps.metrics, deps.logger));
  add('digest', notifyBackPressure(createDigestProcessor(deps) as Processor, deps.metrics, deps.logger));
  return {
    workers,
    async close(force = false) {
      await Promise.allSettled(workers.map((w) => w.close(force)));
    },
  };
}
