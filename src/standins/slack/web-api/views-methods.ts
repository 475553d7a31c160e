/** views.publish (App Home), views.open / views.push (modals, need a fresh trigger_id), views.update. */
import { randomBytes } from 'node:crypto';
import { assignBlockIds } from '../block-ids.js';
import { validateView } from '../block-validation.js';
import { boolArg, jsonArg, stringArg } from '../http-body.js';
import type { Json, StoredView } from '../types.js';
import type { MethodContext, MethodHandler } from './method-context.js';
import { SlackMethodError } from './method-error.js';

function viewArg(ctx: MethodContext, expected: 'modal' | 'home'): Json {
  const parsed = jsonArg(ctx.args.view);
  if (!parsed.ok || ctx.args.view === undefined) {
    throw new SlackMethodError('invalid_arguments', { response_metadata: { messages: ['[ERROR] missing required field: view'] } });
  }
  const problems = validateView(parsed.value, expected);
  if (problems.length > 0) {
    const blockProblem = problems.every((line) => line.includes('json-pointer:/view/blocks'));
    throw new SlackMethodError(blockProblem ? 'invalid_blocks' : 'invalid_arguments', {
      response_metadata: { messages: problems },
    });
  }
  return parsed.value as Json;
}

function newHash(nowMs: number): string {
  return `${Math.floor(nowMs / 1000)}.${randomBytes(4).toString('hex')}`;
}

/** Builds the stored view from a view payload, keeping the identity of `previous` when given. */
function buildView(ctx: MethodContext, payload: Json, user: string, previous?: StoredView): StoredView {
  const id = previous?.id ?? ctx.state.ids.next('V');
  return {
    id,
    team_id: ctx.options.teamId,
    type: payload.type as 'modal' | 'home',
    user,
    ...(payload.title ? { title: payload.title as Json } : {}),
    ...(payload.submit ? { submit: payload.submit as Json } : {}),
    ...(payload.close ? { close: payload.close as Json } : {}),
    blocks: assignBlockIds(payload.blocks as Json[]),
    private_metadata: stringArg(payload.private_metadata) ?? '',
    callback_id: stringArg(payload.callback_id) ?? '',
    external_id: stringArg(payload.external_id) ?? previous?.external_id ?? '',
    hash: newHash(ctx.now()),
    notify_on_close: boolArg(payload.notify_on_close),
    clear_on_close: boolArg(payload.clear_on_close),
    state: previous?.state ?? { values: {} },
    app_id: ctx.bot.appId,
    bot_id: ctx.bot.botId,
    root_view_id: previous?.root_view_id ?? id,
    previous_view_id: previous?.previous_view_id ?? null,
  };
}

/** The view as the Web API returns it. */
export function viewJson(view: StoredView): Json {
  const { user: _user, errors: _errors, ...rest } = view;
  return { ...rest, app_installed_team_id: view.team_id };
}

export const publish: MethodHandler = (ctx) => {
  const userId = stringArg(ctx.args.user_id);
  if (!userId || !ctx.state.user(userId)) throw new SlackMethodError('user_not_found');
  const payload = viewArg(ctx, 'home');
  const previous = ctx.state.homeView(userId);
  const hash = stringArg(ctx.args.hash);
  if (hash && previous && previous.hash !== hash) throw new SlackMethodError('hash_conflict');
  const view = ctx.state.putView(buildView(ctx, payload, userId, previous));
  return { view: viewJson(view) };
};

function exchangeTrigger(ctx: MethodContext): string {
  const trigger = stringArg(ctx.args.trigger_id);
  if (!trigger) throw new SlackMethodError('invalid_trigger_id');
  const result = ctx.triggers.exchange(trigger);
  if (!result.ok) throw new SlackMethodError(result.error);
  return result.grant.user;
}

export const open: MethodHandler = (ctx) => {
  const payload = viewArg(ctx, 'modal');
  const user = exchangeTrigger(ctx);
  const view = ctx.state.putView(buildView(ctx, payload, user));
  ctx.state.closeModal(user, true);
  ctx.state.pushModal(user, view.id);
  return { view: viewJson(view) };
};

export const push: MethodHandler = (ctx) => {
  const payload = viewArg(ctx, 'modal');
  const user = exchangeTrigger(ctx);
  const stack = ctx.state.modalStack(user);
  if (stack.length === 0) throw new SlackMethodError('not_found');
  if (stack.length >= 3) throw new SlackMethodError('push_limit_reached');
  const view = buildView(ctx, payload, user);
  view.root_view_id = stack[0]!.id;
  view.previous_view_id = stack[stack.length - 1]!.id;
  ctx.state.putView(view);
  ctx.state.pushModal(user, view.id);
  return { view: viewJson(view) };
};

export const update: MethodHandler = (ctx) => {
  const viewId = stringArg(ctx.args.view_id);
  const externalId = stringArg(ctx.args.external_id);
  const previous = viewId ? ctx.state.view(viewId) : externalId ? ctx.state.viewByExternalId(externalId) : undefined;
  if (!previous) throw new SlackMethodError('not_found');
  const payload = viewArg(ctx, previous.type);
  const hash = stringArg(ctx.args.hash);
  if (hash && previous.hash !== hash) throw new SlackMethodError('hash_conflict');
  const view = ctx.state.putView(buildView(ctx, payload, previous.user, previous));
  return { view: viewJson(view) };
};
