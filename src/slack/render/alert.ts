/**
 * The one renderer of an alert message: what notify posts and every later refresh (after an ack, a
 * silence) render through this, so the message looks the same whoever asked for it (the same "Open
 * in Databricks" link, the same silence line). And the thread notes people's actions leave.
 */
import type { IncidentRecord, SilenceRecord, StreamInfo } from '../../store/types.js';
import { databricksUrlFor } from '../operations/databricks-url.js';
import { renderIncidentMessage } from './incident-message.js';
import { renderAckReply, renderSilenceReply } from './incident-thread.js';
import type { RenderedMessage } from './types.js';

export interface AlertRenderContext {
  nowMs: number;
  stream: (Pick<StreamInfo, 'runPageUrl' | 'workspace' | 'jobId' | 'pipelineId'> & { name?: string | null }) | null;
  silence: SilenceRecord | null;
  /** Other members of the storm message this incident leads. */
  grouped?: IncidentRecord[];
  /** Link to the alert of the stall a catch-up follows. @defaultValue none: named by its id */
  stallUrl?: string | null;
}

export function renderAlert(record: IncidentRecord, ctx: AlertRenderContext): RenderedMessage {
  const silence = ctx.silence && ctx.silence.untilMs > ctx.nowMs ? ctx.silence : null;
  return renderIncidentMessage(record, {
    nowMs: ctx.nowMs,
    queryName: ctx.stream?.name ?? record.queryName,
    databricksUrl: databricksUrlFor(ctx.stream),
    silencedUntilMs: silence?.untilMs ?? null,
    silencedBy: silence?.byUser ?? null,
    ...(ctx.grouped && ctx.grouped.length > 0 ? { grouped: ctx.grouped } : {}),
    ...(ctx.stallUrl ? { stallUrl: ctx.stallUrl } : {}),
  });
}

/** A person's action, told once in the alert's thread by the notify job that re-renders the alert. */
export interface AlertNote {
  kind: 'ack' | 'unack' | 'silence' | 'unsilence';
  userId: string;
  atMs: number;
  /** End of the silence (`silence`). */
  untilMs?: number | null;
  /** The stream's name, told in a thread several streams share (a storm group's). @defaultValue "this stream" */
  subject?: string;
}

export function renderAlertNote(note: AlertNote): RenderedMessage {
  switch (note.kind) {
    case 'ack':
      return renderAckReply(note.userId, note.atMs, true, note.subject);
    case 'unack':
      return renderAckReply(note.userId, note.atMs, false, note.subject);
    case 'silence':
      return renderSilenceReply(note.userId, note.untilMs ?? note.atMs, note.atMs, note.subject);
    case 'unsilence':
      return renderSilenceReply(note.userId, null, note.atMs, note.subject);
  }
}
