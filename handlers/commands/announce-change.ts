/**
 * A change to where or whether a stream alerts (mute, unmute, watch, unwatch) is told where its alerts
 * go, so the people who get them learn of it there: this channel through response_url, another by a
 * post with the app's client (the one every listener answers with). The caller then learns privately
 * where it was told, and why a channel was not (the change stands either way). Nothing of another
 * channel is said in this one, and a channel the caller may not see is not named even to them.
 */
import { fallbackText, sectionBlock } from '../../src/slack/limits.js';
import { channelMention } from '../../src/slack/mrkdwn.js';
import { checkChannel, whyNotPosted } from '../../src/slack/operations/channel-check.js';
import { isHere, type CallerChannels } from '../../src/slack/operations/channel-scope.js';
import { replyInChannel, replyPrivately, scopeOf, type CommandContext } from './command-context.js';

type Delivery = { label: string; why: string | null };

/** A channel not named to the caller: private and theirs not to see, or one Slack will not describe. */
const HIDDEN = 'the channel its alerts go to';

/** Posts `message` in `channel`; null when posted, else why not. */
async function postIn(ctx: CommandContext, channel: string, message: string): Promise<string | null> {
  // An archived channel or one the bot cannot see: posting would fail, or (archived) be lost.
  const check = await checkChannel(ctx.client, channel, ctx.deps.logger);
  if (check.status === 'not_found') return whyNotPosted(check.error);
  try {
    await ctx.client.chat.postMessage({ channel, text: fallbackText(message), blocks: [sectionBlock(message)], unfurl_links: false, unfurl_media: false });
    return null;
  } catch (error) {
    ctx.deps.logger.warn({ err: { message: (error as Error)?.message }, channel }, 'could not announce a change in the channel its alerts go to');
    return whyNotPosted((error as { data?: { error?: string } }).data?.error ?? 'request_failed');
  }
}

/** `a`, `a and b`, `a, b and c`. */
function listed(labels: string[]): string {
  return labels.length <= 1 ? (labels[0] ?? '') : `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
}

/** Where it was told, and where not and why; '' when this channel was the only one. */
function whereTold(deliveries: Delivery[], here: boolean): string {
  const told = deliveries.filter((delivery) => delivery.why === null).map((delivery) => delivery.label);
  const parts = told.length > 0 ? [`${here ? 'Also announced' : 'Announced'} in ${listed(told)}.`] : [];
  for (const { label, why } of deliveries) if (why !== null) parts.push(`${label[0]!.toUpperCase()}${label.slice(1)} was not told: ${why}.`);
  return parts.join(' ');
}

/**
 * Tells `message` once in each of `targets` (route targets: channel ids, or names the watch file
 * wrote), then the caller where it went. `message` is mrkdwn built from escaped text.
 */
export async function announceChange(ctx: CommandContext, channels: CallerChannels, targets: readonly string[], message: string): Promise<void> {
  let here = false;
  const ids = new Set<string>();
  let unfound = 0;
  for (const target of targets) {
    const id = isHere(scopeOf(ctx), target) ? ctx.channelId : await channels.idOf(target);
    if (id === ctx.channelId) here = true;
    else if (id) ids.add(id);
    else unfound += 1;
  }
  if (here) await replyInChannel(ctx, message);
  const deliveries: Delivery[] = [];
  for (const id of ids) {
    const label = (await channels.maySee(id)) ? channelMention(id) : HIDDEN;
    deliveries.push({ label, why: await postIn(ctx, id, message) });
  }
  // A name Slack does not list is not named: it may be a private channel.
  if (unfound > 0) deliveries.push({ label: HIDDEN, why: whyNotPosted('channel_not_found') });
  const where = whereTold(deliveries, here);
  if (!here) await replyPrivately(ctx, where ? `${message}\n${where}` : message);
  else if (where) await replyPrivately(ctx, where);
}
