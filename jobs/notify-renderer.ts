/**
 * What notify renders with: the Slack engineer's Block Kit renderers (src/slack/render/), behind a
 * small interface so tests can count or alter renders.
 */
import { renderIncidentMessage } from '../src/slack/render/incident-message.js';
import { renderResolvedReply } from '../src/slack/render/incident-thread.js';
import type { RenderedMessage } from '../src/slack/render/types.js';
import type { IncidentRecord, SilenceRecord, StreamRecord } from '../src/store/types.js';

export interface RenderContext {
  nowMs: number;
  stream: StreamRecord | null;
  silence: SilenceRecord | null;
}

export interface NotifyRenderer {
  incident(record: IncidentRecord, ctx: RenderContext, grouped?: IncidentRecord[]): RenderedMessage;
  resolvedReply(record: IncidentRecord, nowMs: number): RenderedMessage;
}

export const blockKitRenderer: NotifyRenderer = {
  incident(record, ctx, grouped) {
    return renderIncidentMessage(record, {
      nowMs: ctx.nowMs,
      queryName: ctx.stream?.name ?? record.queryName,
      databricksUrl: ctx.stream?.runPageUrl ?? null,
      silencedUntilMs: ctx.silence?.untilMs ?? null,
      silencedBy: ctx.silence?.byUser ?? null,
      ...(grouped && grouped.length > 0 ? { grouped } : {}),
    });
  },
  resolvedReply(record, nowMs) {
    return renderResolvedReply(record, nowMs);
  },
};
