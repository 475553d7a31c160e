/**
 * Who may change alerting from Slack (mute, unmute, ack, watch, unwatch, and the alert buttons that
 * do the same: Silence, Unsilence, Acknowledge, Unacknowledge).
 * Default: anyone in the channel. When user ids or user groups are configured, only they may.
 */
import { escapeMrkdwn, isSubteamId, userMention } from './mrkdwn.js';

/** `digest` (`/stream digest`, a public post) is guarded only when `actions` lists it. */
export type GuardedAction = 'mute' | 'unmute' | 'ack' | 'watch' | 'unwatch' | 'digest';

export interface PermissionPolicy {
  /** Slack user ids (`U…`/`W…`) allowed. */
  users?: string[];
  /** Slack user group ids (`S…`) whose members are allowed. */
  userGroups?: string[];
  /**
   * Actions the policy guards; the others stay open to anyone.
   * @defaultValue ['mute', 'unmute', 'ack', 'watch', 'unwatch']
   */
  actions?: GuardedAction[];
}

/** Lists the members of a user group (usergroups.users.list). */
export type GroupMembersLookup = (groupId: string) => Promise<string[]>;

/** The part of a Slack WebClient the group lookup needs. */
export interface UserGroupsClient {
  usergroups: { users: { list(args: { usergroup: string }): Promise<{ users?: string[] }> } };
}

/** Group members read from Slack (usergroups.users.list, scope usergroups:read). */
export function slackGroupMembers(client: UserGroupsClient): GroupMembersLookup {
  return async (groupId) => (await client.usergroups.users.list({ usergroup: groupId })).users ?? [];
}

export interface PermissionCheckerOptions {
  policy?: PermissionPolicy;
  groupMembers?: GroupMembersLookup;
  /**
   * How long group memberships are cached.
   * @defaultValue 5 minutes
   */
  cacheMs?: number;
  now?: () => number;
}

export type PermissionDecision = { allowed: true } | { allowed: false; reason: string };

export class PermissionChecker {
  private readonly cache = new Map<string, { members: Set<string>; at: number }>();
  private readonly policy: PermissionPolicy;
  private readonly now: () => number;

  constructor(private readonly options: PermissionCheckerOptions = {}) {
    this.policy = options.policy ?? {};
    this.now = options.now ?? Date.now;
  }

  /** True when nobody is restricted (no users, no groups configured). */
  get open(): boolean {
    return (this.policy.users ?? []).length === 0 && (this.policy.userGroups ?? []).length === 0;
  }

  /**
   * `client`: the request's Slack client; user groups are read with it (usergroups.users.list) when
   * no `groupMembers` lookup was configured.
   */
  async check(action: GuardedAction, userId: string, client?: UserGroupsClient): Promise<PermissionDecision> {
    const guarded = this.policy.actions ?? ['mute', 'unmute', 'ack', 'watch', 'unwatch'];
    if (this.open || !guarded.includes(action)) return { allowed: true };
    if ((this.policy.users ?? []).includes(userId)) return { allowed: true };
    for (const group of this.policy.userGroups ?? []) {
      const members = await this.members(group, client);
      if (members.has(userId)) return { allowed: true };
    }
    const who = [
      ...(this.policy.users ?? []).map((id) => userMention(id)),
      ...(this.policy.userGroups ?? []).map((id) => (isSubteamId(id) ? `<!subteam^${id}>` : escapeMrkdwn(id))),
    ].slice(0, 5);
    return { allowed: false, reason: `Only ${who.join(', ')} may ${action} streams here; ask one of them.` };
  }

  private async members(groupId: string, client?: UserGroupsClient): Promise<Set<string>> {
    const cached = this.cache.get(groupId);
    const ttl = this.options.cacheMs ?? 300_000;
    if (cached && this.now() - cached.at < ttl) return cached.members;
    const lookup = this.options.groupMembers ?? (client ? slackGroupMembers(client) : undefined);
    if (!lookup) return new Set();
    try {
      const members = new Set(await lookup(groupId));
      this.cache.set(groupId, { members, at: this.now() });
      return members;
    } catch {
      // A failed lookup denies (safe side) but is not cached, so the next click retries.
      return cached?.members ?? new Set();
    }
  }
}

/** Reads the policy from comma-separated lists, e.g. STREAMDOCTOR_SLACK_ADMINS="U1,U2,S123". */
export function permissionPolicyFromList(list: string | undefined): PermissionPolicy {
  const ids = (list ?? '')
    .split(/[\s,]+/)
    .map((id) => id.trim())
    .filter(Boolean);
  return { users: ids.filter((id) => /^[UW][A-Z0-9]+$/.test(id)), userGroups: ids.filter((id) => /^S[A-Z0-9]+$/.test(id)) };
}
