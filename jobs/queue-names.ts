/** Queue names and job names, shared by producers and workers; the shapes workers accept. */
import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import type { AlertNote } from '../src/slack/render/alert.js';
import { parseIncidentId } from '../src/store/incident-id.js';

export const QUEUE = {
  poll: 'poll',
  detect: 'detect',
  notify: 'notify',
  digest: 'digest',
} as const;

export type QueueName = (typeof QUEUE)[keyof typeof QUEUE];

/** Job names on the poll queue. */
export const POLL_JOB = {
  /** One source, one cycle. */
  poll: 'poll',
  /** A detect tick for every stream (stalled detection, forecasts, outbox drain). */
  sweep: 'sweep',
} as const;

export interface PollJobData {
  /** Set for `poll` jobs. */
  sourceId?: string;
}

export interface DetectJobData {
  /** The query (a job for one query), or a group's or shard's first (what an older worker reads). */
  queryId: string;
  /**
   * A shard: every query the poll marked pending in that shard (store.pendingDetect), run together;
   * queries with nothing left in their inbox are skipped.
   */
  shard?: number;
  /** A group: these queries (the sweep's slice of every stream). */
  queryIds?: string[];
  /** Run and tick every query of the group even with nothing new (the sweep). */
  tick?: boolean;
}

export type NotifyJobData =
  /** `change` null: the outbox entry had lost it (notify judges it as an update). */
  | { kind: 'incident'; queryId: string; incidentId: string; version: number; change: 'opened' | 'updated' | 'resolved' | null; committedAt: number }
  | { kind: 'group'; channel: string; groupId: string; committedAt: number }
  /**
   * Re-render after a person's action (ack, silence) or a silence's end, so the message shows it (or
   * is posted, when a silence held it back); `note` is told once in the alert's thread.
   */
  | { kind: 'refresh'; incidentId: string; committedAt: number; note?: AlertNote; noteKey?: string };

export type DigestJobData =
  /** The daily fan-out: enqueues one digest per channel for `day`. */
  | { kind: 'all'; day?: string }
  /** One channel's digest: the daily one (`digest.<day>`), or one asked for now (`requestId`, a new message). */
  | { kind: 'channel'; channel: string; day: string; requestId?: string };

const text = z.string().min(1, 'must be a non-empty string');
const incidentId = text.refine((id) => parseIncidentId(id) !== null, 'is not an incident id (<queryId>.<kind>.<openedAt>)');
const committedAt = z.number().finite();
const alertNote = z.object({
  kind: z.enum(['ack', 'unack', 'silence', 'unsilence']),
  userId: z.string(),
  atMs: z.number().finite(),
  untilMs: z.number().finite().nullable().optional(),
  subject: z.string().optional(),
});

/** What a detect job must carry (`DetectJobData`): a query, a group or a shard to run. */
export const detectJobSchema = z
  .object({
    queryId: text.optional(),
    shard: z.number().int().nonnegative().optional(),
    queryIds: z.array(text).optional(),
    tick: z.boolean().optional(),
  })
  .refine((d) => d.queryId !== undefined || d.shard !== undefined || (d.queryIds?.length ?? 0) > 0, { path: ['queryId'], message: 'no query, group or shard to run' });

/** What a notify job must carry to be processed (the fields it reads; `NotifyJobData`). */
export const notifyJobSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('incident'), incidentId, change: z.enum(['opened', 'updated', 'resolved']).nullable().default(null), committedAt }),
  z.object({ kind: z.literal('group'), channel: text, groupId: text, committedAt }),
  z.object({ kind: z.literal('refresh'), incidentId, committedAt, note: alertNote.optional(), noteKey: text.optional() }),
]);

/** What a digest job must carry (`DigestJobData`). */
export const digestJobSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('all'), day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day, YYYY-MM-DD').optional() }),
  z.object({ kind: z.literal('channel'), channel: text, day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day, YYYY-MM-DD'), requestId: text.optional() }),
]);

/**
 * A job's data read by its schema. Data of another shape (a producer's bug, a job written by hand, an
 * older release) cannot succeed on a retry: it fails at once, naming the job and the field.
 */
export function jobDataOf<S extends z.ZodType>(schema: S, queue: QueueName, job: { id?: string | undefined; name: string; data: unknown }): z.output<S> {
  const parsed = schema.safeParse(job.data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join('.') || '(root)';
  throw new UnrecoverableError(`streamdoctor_${queue}_bad_job_data: ${queue} job ${job.id ?? '?'} (${job.name}): job data field "${field}" is invalid: ${issue.message}`);
}
