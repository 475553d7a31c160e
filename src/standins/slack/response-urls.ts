/**
 * response_urls handed to the app with commands and interactions. Each is usable 5 times within
 * 30 minutes (then 404 `used_url` / `expired_url`); bodies are applied as Slack does: ephemeral by
 * default, `response_type: in_channel` posts to the channel, `replace_original` / `delete_original`
 * change the message the interaction came from.
 */
import { boolArg, stringArg } from './http-body.js';
import type { SlackState } from './slack-state.js';
import type { BotIdentity, Json, ResponseUrlRecord } from './types.js';
import { messageContent } from './web-api/method-context.js';
import { SlackMethodError } from './web-api/method-error.js';

export const RESPONSE_URL_MAX_USES = 5;
export const RESPONSE_URL_TTL_MS = 30 * 60 * 1000;

export type ResponseOutcome =
  | { status: 200; body: Json }
  | { status: 400 | 404; body: Json };

export class ResponseUrls {
  private readonly records = new Map<string, ResponseUrlRecord>();

  constructor(
    private readonly state: SlackState,
    private readonly bot: BotIdentity,
    private readonly baseUrl: () => string,
    private readonly now: () => number,
  ) {}

  create(target: { channel: string; user: string; messageTs?: string; fromEphemeral?: boolean }): ResponseUrlRecord {
    const id = this.state.ids.triggerId(this.now()).replace(/\./g, '');
    const record: ResponseUrlRecord = {
      id,
      url: `${this.baseUrl()}/response/${id}`,
      channel: target.channel,
      user: target.user,
      ...(target.messageTs ? { messageTs: target.messageTs } : {}),
      ...(target.fromEphemeral ? { fromEphemeral: true } : {}),
      createdAt: this.now(),
      uses: 0,
      responses: [],
    };
    this.records.set(id, record);
    // Forget urls past their life so a long demo stays small.
    for (const [key, r] of this.records) if (this.now() - r.createdAt > 2 * RESPONSE_URL_TTL_MS) this.records.delete(key);
    return record;
  }

  get(id: string): ResponseUrlRecord | undefined {
    return this.records.get(id);
  }

  all(): ResponseUrlRecord[] {
    return [...this.records.values()];
  }

  /**
   * Applies one POST to a response_url. `via: 'ack'` applies a command's acknowledgement body the
   * same way without spending one of the five uses.
   */
  respond(id: string, body: unknown, via: 'response_url' | 'ack' = 'response_url'): ResponseOutcome {
    const record = this.records.get(id);
    if (!record) return { status: 404, body: { ok: false, error: 'invalid_url' } };
    if (this.now() - record.createdAt > RESPONSE_URL_TTL_MS) return { status: 404, body: { ok: false, error: 'expired_url' } };
    if (record.uses >= RESPONSE_URL_MAX_USES) return { status: 404, body: { ok: false, error: 'used_url' } };
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return { status: 400, body: { ok: false, error: 'invalid_payload' } };
    }
    const args = body as Json;
    if (via === 'response_url') {
      record.uses += 1;
      record.responses.push(args);
    }
    try {
      this.apply(record, args, via);
      return { status: 200, body: { ok: true } };
    } catch (err) {
      if (err instanceof SlackMethodError) return { status: 400, body: { ok: false, error: err.error, ...err.extra } };
      throw err;
    }
  }

  private apply(record: ResponseUrlRecord, args: Json, via: 'response_url' | 'ack'): void {
    const state = this.state;
    if (boolArg(args.delete_original)) {
      if (!record.messageTs) return;
      if (record.fromEphemeral) {
        const e = state.findEphemeral(record.channel, record.messageTs);
        if (e) {
          e.deleted = true;
          state.touchEphemeral(e);
        }
      } else {
        state.deleteMessage(record.channel, record.messageTs);
      }
      return;
    }
    const content = messageContent(args, true);
    if (boolArg(args.replace_original) && record.messageTs) {
      if (record.fromEphemeral) {
        const e = state.findEphemeral(record.channel, record.messageTs);
        if (!e) throw new SlackMethodError('message_not_found');
        e.text = content.text;
        e.blocks = content.blocks;
        e.attachments = content.attachments;
        state.touchEphemeral(e);
      } else {
        const message = state.findMessage(record.channel, record.messageTs);
        if (!message) throw new SlackMethodError('message_not_found');
        state.updateMessage(record.channel, record.messageTs, {
          text: content.text,
          blocks: content.blocks,
          attachments: content.attachments,
          edited: { user: this.bot.userId, ts: state.nextTs(this.now()) },
        });
      }
      return;
    }
    const threadTs = stringArg(args.thread_ts);
    const ts = state.nextTs(this.now());
    if (args.response_type === 'in_channel') {
      state.addMessage({
        type: 'message',
        channel: record.channel,
        ts,
        text: content.text,
        ...(content.blocks ? { blocks: content.blocks } : {}),
        ...(content.attachments ? { attachments: content.attachments } : {}),
        user: this.bot.userId,
        bot_id: this.bot.botId,
        app_id: this.bot.appId,
        ...(threadTs && state.findMessage(record.channel, threadTs) ? { thread_ts: threadTs } : {}),
        postedByToken: this.bot.token,
      });
      return;
    }
    state.addEphemeral({
      channel: record.channel,
      user: record.user,
      ts,
      text: content.text,
      ...(content.blocks ? { blocks: content.blocks } : {}),
      ...(content.attachments ? { attachments: content.attachments } : {}),
      ...(threadTs ? { thread_ts: threadTs } : {}),
      source: via,
      responseUrlId: record.id,
    });
    // A later replace_original / delete_original on this url targets the ephemeral it posted.
    if (!record.messageTs) {
      record.messageTs = ts;
      record.fromEphemeral = true;
    }
  }
}
