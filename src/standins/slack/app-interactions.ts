/**
 * What a person does in Slack, turned into the requests Slack sends the app: running a slash command,
 * clicking a button or picking from a select (in a message, a modal or the Home tab), submitting or
 * closing a modal, opening the App Home, posting a message or sharing a file. Each hands out the
 * trigger_id and response_url Slack would, delivers the signed request, and applies the app's
 * acknowledgement (a command's ack text, a view_submission's response_action) the way Slack does.
 */
import type { ResolvedOptions } from './options.js';
import {
  blockActionsPayload,
  eventEnvelope,
  slashCommandBody,
  viewClosedPayload,
  viewSubmissionPayload,
  type PayloadTeam,
} from './payloads.js';
import type { ResponseUrls } from './response-urls.js';
import type { DeliveryResult, SendOptions, SlackDelivery } from './slack-delivery.js';
import type { EventRedelivery } from './event-redelivery.js';
import type { SlackState } from './slack-state.js';
import { validateView } from './block-validation.js';
import { assignBlockIds } from './block-ids.js';
import type { TriggerIds } from './trigger-ids.js';
import { InteractionError } from './interaction-error.js';
import type { BotIdentity, Json, StoredMessage, StoredView, WorkspaceChannel, WorkspaceUser } from './types.js';
import { fileJson, messageJson } from './web-api/method-context.js';
import { fileTypeOf } from './web-api/files-methods.js';
import { viewJson } from './web-api/views-methods.js';

export interface InteractionOutcome {
  delivery: DeliveryResult;
  /** What Slack would show the user when the app failed to answer, e.g. `dispatch_failed`. */
  error?: string;
}

export interface InteractionDeps {
  state: SlackState;
  delivery: SlackDelivery;
  eventRedelivery: EventRedelivery;
  responseUrls: ResponseUrls;
  triggers: TriggerIds;
  options: ResolvedOptions;
  /** The app's bot (the first configured bot). */
  bot: BotIdentity;
  baseUrl: () => string;
  now: () => number;
}

/** A value a person picked: a button needs none; selects take an option value (or values). */
export interface ActionInput {
  user: string;
  actionId: string;
  blockId?: string;
  /** For selects, checkboxes, radio buttons: the chosen option value(s). */
  selected?: string | string[];
}

function failure(delivery: DeliveryResult): string | undefined {
  if (delivery.failure === 'timeout') return 'operation_timeout';
  if (delivery.failure) return 'dispatch_failed';
  if (delivery.status !== 200) return delivery.status === 404 ? 'dispatch_failed' : 'http_service_error';
  return undefined;
}

function findElement(blocks: Json[] | undefined, actionId: string, blockId?: string): { block: Json; element: Json } | undefined {
  for (const block of blocks ?? []) {
    if (blockId && block.block_id !== blockId) continue;
    const candidates: unknown[] = [];
    if (Array.isArray(block.elements)) candidates.push(...block.elements);
    if (block.accessory) candidates.push(block.accessory);
    if (block.element) candidates.push(block.element);
    for (const c of candidates) {
      if (typeof c === 'object' && c !== null && (c as Json).action_id === actionId) return { block, element: c as Json };
    }
  }
  return undefined;
}

function optionsOf(element: Json): Json[] {
  if (Array.isArray(element.options)) return element.options as Json[];
  if (Array.isArray(element.option_groups)) {
    return (element.option_groups as Json[]).flatMap((g) => (Array.isArray(g.options) ? (g.options as Json[]) : []));
  }
  return [];
}

/** The value object Slack reports for an element (in `actions[]` and in `state.values`). */
function elementValue(element: Json, selected: string | string[] | undefined): Json {
  const type = String(element.type);
  const one = Array.isArray(selected) ? selected[0] : selected;
  const many = Array.isArray(selected) ? selected : selected === undefined ? [] : [selected];
  const pick = (value: string | undefined): Json | null => {
    if (value === undefined) return null;
    const option = optionsOf(element).find((o) => o.value === value);
    if (!option) throw new InteractionError('streamdoctor_local_slack_bad_input', `option "${value}" is not offered by ${String(element.action_id)}`);
    return option;
  };
  switch (type) {
    case 'static_select':
    case 'radio_buttons':
    case 'overflow':
      return { type, selected_option: pick(one) };
    case 'multi_static_select':
    case 'checkboxes':
      return { type, selected_options: many.map((v) => pick(v)!) };
    case 'users_select':
      return { type, selected_user: one ?? null };
    case 'multi_users_select':
      return { type, selected_users: many };
    case 'conversations_select':
      return { type, selected_conversation: one ?? null };
    case 'channels_select':
      return { type, selected_channel: one ?? null };
    case 'datepicker':
      return { type, selected_date: one ?? null };
    case 'timepicker':
      return { type, selected_time: one ?? null };
    default:
      return { type, value: one ?? null };
  }
}

function actionJson(block: Json, element: Json, selected: string | string[] | undefined, actionTs: string): Json {
  const base: Json = { action_id: element.action_id, block_id: block.block_id, action_ts: actionTs };
  if (element.type === 'button') {
    return {
      ...base,
      type: 'button',
      text: element.text,
      ...(element.value !== undefined ? { value: element.value } : {}),
      ...(element.style !== undefined ? { style: element.style } : {}),
      ...(element.url !== undefined ? { url: element.url } : {}),
    };
  }
  return { ...base, ...elementValue(element, selected), ...(element.placeholder ? { placeholder: element.placeholder } : {}) };
}

export class AppInteractions {
  constructor(private readonly deps: InteractionDeps) {}

  private get team(): PayloadTeam {
    return {
      teamId: this.deps.options.teamId,
      teamDomain: this.deps.options.teamDomain,
      appId: this.deps.bot.appId,
      verificationToken: this.deps.options.verificationToken,
    };
  }

  private user(id: string): WorkspaceUser {
    const user = this.deps.state.user(id);
    if (!user) throw new InteractionError('streamdoctor_local_slack_unknown_user', `no user ${id} in this workspace`);
    return user;
  }

  private channel(id: string): WorkspaceChannel {
    const channel = this.deps.state.channel(id);
    if (!channel) throw new InteractionError('streamdoctor_local_slack_unknown_channel', `no channel ${id} in this workspace`);
    return channel;
  }

  private actionTs(): string {
    return this.deps.state.nextTs(this.deps.now());
  }

  /** `/stream status` typed by `user` in `channel`. */
  async slashCommand(input: { user: string; channel: string; text: string; command?: string; sign?: SendOptions; echo?: boolean }): Promise<InteractionOutcome & { responseUrl: string; triggerId: string }> {
    const { state } = this.deps;
    const user = this.user(input.user);
    const channel = this.channel(input.channel);
    const command = (input.command ?? this.deps.options.command).toLowerCase();
    // Slack's client answers a command no installed app registered itself; the app never hears of it.
    if (command !== this.deps.options.command) {
      state.addEphemeral({ channel: channel.id, user: user.id, ts: this.actionTs(), text: `${command} is not a valid command. In Slack, messages that start with "/" are read as commands.`, source: 'ack' });
      throw new InteractionError('streamdoctor_local_slack_unknown_command', `${command} is not a valid command (this app's is ${this.deps.options.command})`);
    }
    if (input.echo !== false) {
      state.addEphemeral({
        channel: channel.id,
        user: user.id,
        ts: this.actionTs(),
        text: `${command} ${input.text}`.trim(),
        source: 'command_echo',
      });
    }
    const responseUrl = this.deps.responseUrls.create({ channel: channel.id, user: user.id });
    const triggerId = this.deps.triggers.issue(user.id, channel.id);
    const body = slashCommandBody(this.team, { command, text: input.text, channel, user, responseUrl: responseUrl.url, triggerId });
    const delivery = await this.deps.delivery.sendSlashCommand(body, input.sign);
    const error = failure(delivery);
    if (error) {
      state.addEphemeral({ channel: channel.id, user: user.id, ts: this.actionTs(), text: `${command} failed with the error "${error}"`, source: 'ack' });
      return { delivery, error, responseUrl: responseUrl.url, triggerId };
    }
    this.applyCommandAck(delivery, channel, user, responseUrl.id);
    return { delivery, responseUrl: responseUrl.url, triggerId };
  }

  /** A non-empty ack body is the command's immediate answer (ephemeral unless in_channel). */
  private applyCommandAck(delivery: DeliveryResult, channel: WorkspaceChannel, user: WorkspaceUser, responseUrlId: string): void {
    if (!delivery.body.trim()) return;
    const args: Json = delivery.json && typeof delivery.json === 'object' ? (delivery.json as Json) : { text: delivery.body };
    const outcome = this.deps.responseUrls.respond(responseUrlId, args, 'ack');
    if (outcome.status !== 200) {
      this.deps.state.addEphemeral({
        channel: channel.id,
        user: user.id,
        ts: this.actionTs(),
        text: `The app's answer could not be shown: ${String(outcome.body.error)}`,
        source: 'ack',
      });
    }
  }

  /** A click or a pick on an element of a channel message or an ephemeral message. */
  async messageAction(input: ActionInput & { channel: string; messageTs: string; ephemeral?: boolean; sign?: SendOptions }): Promise<InteractionOutcome> {
    const { state } = this.deps;
    const user = this.user(input.user);
    const channel = this.channel(input.channel);
    let messageBody: Json;
    let blocks: Json[] | undefined;
    if (input.ephemeral) {
      const e = state.findEphemeral(channel.id, input.messageTs);
      if (!e || e.user !== user.id) throw new InteractionError('streamdoctor_local_slack_not_found', 'no such ephemeral message');
      blocks = e.blocks;
      messageBody = { type: 'message', text: e.text, ts: e.ts, ...(e.blocks ? { blocks: e.blocks } : {}), user: this.deps.bot.userId, bot_id: this.deps.bot.botId };
    } else {
      const m = state.findMessage(channel.id, input.messageTs);
      if (!m) throw new InteractionError('streamdoctor_local_slack_not_found', `no message ${input.messageTs} in ${channel.id}`);
      blocks = [...(m.blocks ?? []), ...(m.attachments ?? []).flatMap((a) => (Array.isArray(a.blocks) ? (a.blocks as Json[]) : []))];
      messageBody = messageJson(m, state, this.deps.options.teamId);
    }
    const found = findElement(blocks, input.actionId, input.blockId);
    if (!found) throw new InteractionError('streamdoctor_local_slack_not_found', `no element with action_id ${input.actionId}`);
    const action = actionJson(found.block, found.element, input.selected, this.actionTs());
    const stateValues: Record<string, Record<string, Json>> = {};
    if (found.element.type !== 'button') {
      stateValues[String(found.block.block_id)] = { [String(found.element.action_id)]: elementValue(found.element, input.selected) };
    }
    const responseUrl = this.deps.responseUrls.create({ channel: channel.id, user: user.id, messageTs: input.messageTs, fromEphemeral: input.ephemeral === true });
    const payload = blockActionsPayload(this.team, {
      user,
      triggerId: this.deps.triggers.issue(user.id, channel.id),
      actions: [action],
      actionTs: String(action.action_ts),
      message: { channel, message: messageBody, isEphemeral: input.ephemeral === true, responseUrl: responseUrl.url },
      stateValues,
    });
    const delivery = await this.deps.delivery.sendInteraction(payload, input.sign);
    return { delivery, ...(failure(delivery) ? { error: failure(delivery) } : {}) };
  }

  /** A click or a pick inside a modal or the Home tab. */
  async viewAction(input: ActionInput & { viewId: string; sign?: SendOptions }): Promise<InteractionOutcome> {
    const user = this.user(input.user);
    const view = this.deps.state.view(input.viewId);
    if (!view || view.user !== user.id) throw new InteractionError('streamdoctor_local_slack_not_found', `no view ${input.viewId}`);
    const found = findElement(view.blocks, input.actionId, input.blockId);
    if (!found) throw new InteractionError('streamdoctor_local_slack_not_found', `no element with action_id ${input.actionId}`);
    const action = actionJson(found.block, found.element, input.selected, this.actionTs());
    if (found.element.type !== 'button') {
      const blockValues = (view.state.values[String(found.block.block_id)] ??= {});
      blockValues[String(found.element.action_id)] = elementValue(found.element, input.selected);
    }
    const payload = blockActionsPayload(this.team, {
      user,
      triggerId: this.deps.triggers.issue(user.id),
      actions: [action],
      actionTs: String(action.action_ts),
      view: viewJson(view),
      stateValues: view.state.values,
    });
    const delivery = await this.deps.delivery.sendInteraction(payload, input.sign);
    return { delivery, ...(failure(delivery) ? { error: failure(delivery) } : {}) };
  }

  /**
   * Submits the user's top modal with `values` (block_id → action_id → value(s)) and applies the
   * app's response_action: errors keep it open with messages, update / push change it, clear closes
   * all, anything else closes it.
   */
  async submitView(input: { user: string; viewId: string; values?: Record<string, Record<string, string | string[]>>; sign?: SendOptions }): Promise<InteractionOutcome & { responseAction?: string }> {
    const { state } = this.deps;
    const user = this.user(input.user);
    const view = state.view(input.viewId);
    if (!view || view.user !== user.id || view.type !== 'modal') {
      throw new InteractionError('streamdoctor_local_slack_not_found', `no open modal ${input.viewId}`);
    }
    for (const block of view.blocks) {
      if (block.type !== 'input' || typeof block.element !== 'object' || block.element === null) continue;
      const element = block.element as Json;
      const given = input.values?.[String(block.block_id)]?.[String(element.action_id)];
      (view.state.values[String(block.block_id)] ??= {})[String(element.action_id)] = elementValue(element, given);
    }
    const payload = viewSubmissionPayload(this.team, { user, view: viewJson(view), triggerId: this.deps.triggers.issue(user.id) });
    const delivery = await this.deps.delivery.sendInteraction(payload, input.sign);
    const error = failure(delivery);
    if (error) return { delivery, error };
    const answer = (delivery.json ?? {}) as Json;
    const action = typeof answer.response_action === 'string' ? answer.response_action : undefined;
    if (action === 'errors') {
      view.errors = (answer.errors ?? {}) as Record<string, string>;
      state.touchView(view);
    } else if ((action === 'update' || action === 'push') && answer.view) {
      const problems = validateView(answer.view, 'modal');
      if (problems.length > 0) return { delivery, error: `invalid view in response_action: ${problems[0]}`, responseAction: action };
      const next = this.storeModal(answer.view as Json, user.id, action === 'update' ? view : undefined);
      if (action === 'push') state.pushModal(user.id, next.id);
    } else if (action === 'clear') {
      state.closeModal(user.id, true);
    } else {
      state.closeModal(user.id);
    }
    return { delivery, ...(action ? { responseAction: action } : {}) };
  }

  private storeModal(payload: Json, user: string, previous?: StoredView): StoredView {
    const id = previous?.id ?? this.deps.state.ids.next('V');
    const view: StoredView = {
      id,
      team_id: this.deps.options.teamId,
      type: 'modal',
      user,
      title: payload.title as Json,
      ...(payload.submit ? { submit: payload.submit as Json } : {}),
      ...(payload.close ? { close: payload.close as Json } : {}),
      blocks: assignBlockIds(payload.blocks as Json[]),
      private_metadata: typeof payload.private_metadata === 'string' ? payload.private_metadata : '',
      callback_id: typeof payload.callback_id === 'string' ? payload.callback_id : '',
      external_id: typeof payload.external_id === 'string' ? payload.external_id : '',
      hash: `${Math.floor(this.deps.now() / 1000)}.${id}`,
      notify_on_close: payload.notify_on_close === true,
      clear_on_close: payload.clear_on_close === true,
      state: { values: {} },
      app_id: this.deps.bot.appId,
      bot_id: this.deps.bot.botId,
      root_view_id: previous?.root_view_id ?? id,
      previous_view_id: previous?.previous_view_id ?? null,
    };
    return this.deps.state.putView(view);
  }

  /** The user closes their top modal; view_closed is sent when the view asked for it. */
  async closeView(input: { user: string; viewId: string }): Promise<InteractionOutcome | undefined> {
    const user = this.user(input.user);
    const view = this.deps.state.view(input.viewId);
    this.deps.state.closeModal(user.id, view?.clear_on_close === true);
    if (!view || !view.notify_on_close) return undefined;
    const delivery = await this.deps.delivery.sendInteraction(viewClosedPayload(this.team, { user, view: viewJson(view) }));
    return { delivery, ...(failure(delivery) ? { error: failure(delivery) } : {}) };
  }

  /**
   * Delivers one Events API event; when the app does not answer it with a 2xx in 3 s it is sent
   * again in the background (event-redelivery.ts). A delivery a test shapes itself (a forged
   * signature, a stale timestamp, its own retry number) is not: Slack never sent it.
   */
  async event(event: Json, options: SendOptions & { retryNum?: number; retryReason?: string } = {}): Promise<InteractionOutcome & { eventId: string }> {
    const now = this.deps.now();
    const eventId = `Ev${this.deps.state.ids.next('E').slice(1)}`;
    const envelope = eventEnvelope(this.team, { event, eventId, eventTimeSec: Math.floor(now / 1000), botUserId: this.deps.bot.userId });
    const delivery = await this.deps.delivery.sendEvent(envelope, options);
    const shaped = options.retryNum !== undefined || options.signature !== undefined || options.signingSecret !== undefined || options.timestampSec !== undefined;
    if (!shaped) this.deps.eventRedelivery.schedule(envelope, delivery, options.headers);
    return { delivery, eventId, ...(failure(delivery) ? { error: failure(delivery) } : {}) };
  }

  /** The user opens the app's Home tab: app_home_opened. */
  openHome(input: { user: string }): Promise<InteractionOutcome & { eventId: string }> {
    const user = this.user(input.user);
    const home = this.deps.state.homeView(user.id);
    return this.event({
      type: 'app_home_opened',
      user: user.id,
      channel: `D${user.id.slice(1)}`,
      tab: 'home',
      event_ts: this.actionTs(),
      ...(home ? { view: viewJson(home) } : {}),
    });
  }

  /** The user posts a plain message (optionally in a thread): stored, then a `message` event. */
  async userMessage(input: { user: string; channel: string; text: string; threadTs?: string }): Promise<InteractionOutcome & { ts: string }> {
    const user = this.user(input.user);
    const channel = this.channel(input.channel);
    if (!input.text.trim()) throw new InteractionError('streamdoctor_local_slack_bad_input', 'a message needs text');
    const parent = input.threadTs ? this.deps.state.findMessage(channel.id, input.threadTs) : undefined;
    const message: StoredMessage = {
      type: 'message',
      channel: channel.id,
      ts: this.actionTs(),
      text: input.text,
      user: user.id,
      ...(parent ? { thread_ts: parent.thread_ts && parent.thread_ts !== parent.ts ? parent.thread_ts : parent.ts } : {}),
    };
    this.deps.state.addMessage(message);
    const outcome = await this.event({
      type: 'message',
      channel: channel.id,
      channel_type: 'channel',
      user: user.id,
      text: message.text,
      ts: message.ts,
      event_ts: message.ts,
      team: this.deps.options.teamId,
      ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
    });
    return { ...outcome, ts: message.ts };
  }

  /** The user shares a file in a channel: stored, a file_share message, then `message` and `file_shared` events. */
  async shareFile(input: { user: string; channel: string; name: string; bytes: Buffer; comment?: string }): Promise<InteractionOutcome & { fileId: string; ts: string }> {
    const { state } = this.deps;
    const user = this.user(input.user);
    const channel = this.channel(input.channel);
    if (input.bytes.length === 0) throw new InteractionError('streamdoctor_local_slack_bad_input', 'the file is empty');
    const [mimetype, filetype] = fileTypeOf(input.name, input.bytes);
    const file = state.putFile({
      id: state.ids.next('F'),
      name: input.name,
      title: input.name,
      mimetype,
      filetype,
      size: input.bytes.length,
      user: user.id,
      created: Math.floor(this.deps.now() / 1000),
      completed: true,
      channels: [channel.id],
      bytes: input.bytes,
    });
    const fileObject = fileJson(file, this.deps.baseUrl(), this.deps.options.teamId);
    const message = state.addMessage({
      type: 'message',
      subtype: 'file_share',
      channel: channel.id,
      ts: this.actionTs(),
      text: input.comment ?? '',
      user: user.id,
      files: [fileObject],
    });
    await this.event({
      type: 'message',
      subtype: 'file_share',
      channel: channel.id,
      channel_type: 'channel',
      user: user.id,
      text: message.text,
      ts: message.ts,
      event_ts: message.ts,
      files: [fileObject],
    });
    const outcome = await this.event({
      type: 'file_shared',
      channel_id: channel.id,
      file_id: file.id,
      user_id: user.id,
      file: { id: file.id },
      event_ts: message.ts,
    });
    return { ...outcome, fileId: file.id, ts: message.ts };
  }
}
