/**
 * The request bodies Slack sends to an app, field for field: slash commands (form-encoded),
 * interactivity (form field `payload` holding JSON) and Events API envelopes (JSON).
 * See reference/slack-and-queues.md §3.
 */
import type { Json, WorkspaceChannel, WorkspaceUser } from './types.js';

export interface PayloadTeam {
  teamId: string;
  teamDomain: string;
  appId: string;
  verificationToken: string;
}

export interface SlashCommandFields {
  command: string;
  text: string;
  channel: WorkspaceChannel;
  user: WorkspaceUser;
  responseUrl: string;
  triggerId: string;
}

/** The form body of a slash command. */
export function slashCommandBody(team: PayloadTeam, f: SlashCommandFields): string {
  return new URLSearchParams({
    token: team.verificationToken,
    team_id: team.teamId,
    team_domain: team.teamDomain,
    channel_id: f.channel.id,
    channel_name: f.channel.name,
    user_id: f.user.id,
    user_name: f.user.name,
    command: f.command,
    text: f.text,
    api_app_id: team.appId,
    is_enterprise_install: 'false',
    response_url: f.responseUrl,
    trigger_id: f.triggerId,
  }).toString();
}

/** The form body of an interaction: `payload=<json>`. */
export function interactionBody(payload: Json): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

export function userObject(team: PayloadTeam, user: WorkspaceUser): Json {
  return { id: user.id, username: user.name, name: user.name, team_id: team.teamId };
}

export function teamObject(team: PayloadTeam): Json {
  return { id: team.teamId, domain: team.teamDomain };
}

export interface BlockActionsFields {
  user: WorkspaceUser;
  triggerId: string;
  actions: Json[];
  actionTs: string;
  /** Message container: the channel and message (or ephemeral) the action came from. */
  message?: { channel: WorkspaceChannel; message: Json; isEphemeral: boolean; responseUrl: string };
  /** View container: the modal or Home view the action came from. */
  view?: Json;
  stateValues: Record<string, Record<string, Json>>;
}

export function blockActionsPayload(team: PayloadTeam, f: BlockActionsFields): Json {
  const base: Json = {
    type: 'block_actions',
    user: userObject(team, f.user),
    api_app_id: team.appId,
    token: team.verificationToken,
    trigger_id: f.triggerId,
    team: teamObject(team),
    enterprise: null,
    is_enterprise_install: false,
    state: { values: f.stateValues },
    actions: f.actions,
  };
  if (f.message) {
    const ts = String(f.message.message.ts);
    return {
      ...base,
      container: {
        type: 'message',
        message_ts: ts,
        channel_id: f.message.channel.id,
        is_ephemeral: f.message.isEphemeral,
      },
      channel: { id: f.message.channel.id, name: f.message.channel.name },
      message: f.message.message,
      response_url: f.message.responseUrl,
    };
  }
  return {
    ...base,
    container: { type: 'view', view_id: f.view?.id },
    view: f.view,
  };
}

export function viewSubmissionPayload(
  team: PayloadTeam,
  f: { user: WorkspaceUser; view: Json; triggerId: string },
): Json {
  return {
    type: 'view_submission',
    team: teamObject(team),
    user: userObject(team, f.user),
    api_app_id: team.appId,
    token: team.verificationToken,
    trigger_id: f.triggerId,
    view: f.view,
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}

export function viewClosedPayload(team: PayloadTeam, f: { user: WorkspaceUser; view: Json }): Json {
  return {
    type: 'view_closed',
    team: teamObject(team),
    user: userObject(team, f.user),
    api_app_id: team.appId,
    token: team.verificationToken,
    view: f.view,
    is_cleared: false,
    is_enterprise_install: false,
    enterprise: null,
  };
}

/** The Events API envelope around one event. */
export function eventEnvelope(
  team: PayloadTeam,
  f: { event: Json; eventId: string; eventTimeSec: number; botUserId: string },
): Json {
  return {
    token: team.verificationToken,
    team_id: team.teamId,
    context_team_id: team.teamId,
    context_enterprise_id: null,
    api_app_id: team.appId,
    event: f.event,
    type: 'event_callback',
    event_id: f.eventId,
    event_time: f.eventTimeSec,
    authorizations: [
      { enterprise_id: null, team_id: team.teamId, user_id: f.botUserId, is_bot: true, is_enterprise_install: false },
    ],
    is_ext_shared_channel: false,
  };
}
