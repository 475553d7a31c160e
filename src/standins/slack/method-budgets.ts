/**
 * Slack's per-method budgets (its rate tiers: per method, per workspace, per app) for every Web API
 * method the stand-in implements, held to the floor each tier promises, so a bot that passes here
 * stays inside what Slack allows: Tier 2 "20+ per minute", Tier 3 "50+", Tier 4 "100+", and the
 * "Special" methods that allow hundreds a minute at 100. chat.postMessage has no workspace budget
 * here: Slack's is about one message a second per channel (ChannelRateLimiter).
 */
import { MinuteRateLimiter } from './minute-rate-limiter.js';
import type { RateDecision } from './rate-limiter.js';

const TIER_2 = 20;
const TIER_3 = 50;
const TIER_4 = 100;
const SPECIAL = 100;

/** Calls per minute per workspace and app, by method. */
export const METHOD_BUDGETS: Readonly<Record<string, number>> = {
  'auth.test': SPECIAL,
  'chat.update': TIER_3,
  'chat.delete': TIER_3,
  'chat.postEphemeral': TIER_4,
  'chat.getPermalink': SPECIAL,
  'views.publish': TIER_4,
  'views.open': TIER_4,
  'views.push': TIER_4,
  'views.update': TIER_4,
  'files.getUploadURLExternal': TIER_4,
  'files.completeUploadExternal': TIER_4,
  'files.info': TIER_4,
  'conversations.info': TIER_3,
  'conversations.list': TIER_2,
  'conversations.join': TIER_3,
  'conversations.history': TIER_3,
  'conversations.replies': TIER_3,
  'users.info': TIER_4,
  'users.conversations': TIER_3,
  'usergroups.users.list': TIER_2,
};

export class MethodBudgets {
  private readonly limiters = new Map<string, MinuteRateLimiter>();

  /** `perMinute`: the budget of each method that has one (others are not limited). */
  constructor(perMinute: Readonly<Record<string, number>>, now: () => number = Date.now) {
    for (const [method, budget] of Object.entries(perMinute)) this.limiters.set(method, new MinuteRateLimiter(budget, now));
  }

  /** Counts one call of `method` by `caller` (workspace and app) if its minute has room. */
  take(method: string, caller: string): RateDecision {
    return this.limiters.get(method)?.take(caller) ?? { allowed: true };
  }
}
