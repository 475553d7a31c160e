/** Queue names and job names, shared by producers and workers. */
import type { AlertNote } from '../src/slack/render/alert.js';

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
  | { kind: 'incident'; queryId: string; incidentId: string; version: number; change: 'opened' | 'updated' | 'resolved'; committedAt: number }
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
