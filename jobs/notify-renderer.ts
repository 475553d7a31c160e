/**
 * What notify renders with: the one alert renderer (src/slack/render/alert.ts), the resolve, relapse and severity replies,
 * behind a small interface so tests can count or alter renders.
 */
import { renderAlert, renderAlertNote, type AlertNote } from '../src/slack/render/alert.js';
import { renderRelapseReply, renderResolvedReply, renderSeverityReply } from '../src/slack/render/incident-thread.js';
import type { RenderedMessage } from '../src/slack/render/types.js';
import type { IncidentRecord, SilenceRecord, StreamRecord } from '../src/store/types.js';

export interface RenderContext {
  nowMs: number;
  stream: StreamRecord | null;
  silence: SilenceRecord | null;
  /** Link to the alert of the stall a catch-up follows. @defaultValue none: named by its id */
  stallUrl?: string | null;
}

export interface NotifyRenderer {
  incident(record: IncidentRecord, ctx: RenderContext, grouped?: IncidentRecord[]): RenderedMessage;
  resolvedReply(record: IncidentRecord, nowMs: number): RenderedMessage;
  /** The thread line when a resolved incident comes back in its cool-down. @defaultValue renderRelapseReply */
  relapseReply?(record: IncidentRecord, nowMs: number): RenderedMessage;
  /**
   * The thread line when an open incident's severity changes; `subject` names the stream in a storm
   * group's shared thread. @defaultValue renderSeverityReply
   */
  severityReply?(record: IncidentRecord, subject?: string): RenderedMessage;
  /** A person's action in the alert's thread. @defaultValue renderAlertNote */
  note?(note: AlertNote): RenderedMessage;
}

export const blockKitRenderer: NotifyRenderer = {
  incident(record, ctx, grouped) {
    return renderAlert(record, { ...ctx, ...(grouped ? { grouped } : {}) });
  },
  resolvedReply(record, nowMs) {
    return renderResolvedReply(record, nowMs);
  },
  relapseReply: renderRelapseReply,
  severityReply: renderSeverityReply,
  note: renderAlertNote,
};
