/**
 * "Never lost, never doubled", counted: for the incidents a scenario opened, the top-level messages the
 * local Slack holds under each incident's message key (Slack message metadata), and the poster claims
 * left in Redis. Used by the fault suite (test/faults/) and the cluster failover test.
 */
import type { Redis } from 'ioredis';
import type { LocalSlack } from '../../src/standins/slack/index.js';
import { scanKeys } from './redis.js';

export interface AlertFigures {
  scenario: string;
  /** Incidents the scenario opened that must reach Slack. */
  incidentsOpened: number;
  /** Top-level messages posted for them. */
  messagesPosted: number;
  /** Incidents with more than one top-level message, plus any other message key (a thread reply) posted twice. */
  duplicates: number;
  /** Incidents whose channel never got a message. */
  lost: number;
  /** Poster claims still held (`…:claim:<key>`) with no recorded message, after the scenario settled. */
  stuckClaims: number;
  /** The incident ids behind `duplicates` and `lost`, for the failure message. */
  details: string[];
  /** What the scenario did (faults hit, kills by point), printed under the table. */
  notes?: string[];
}

export function messageKeyOf(m: { metadata?: unknown }): string | undefined {
  return (m.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key;
}

/** Top-level messages per message key, over every channel of the local Slack. */
export function postsByKey(slack: LocalSlack): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of slack.messages()) {
    if ((m as { thread_ts?: string }).thread_ts && (m as { thread_ts?: string }).thread_ts !== m.ts) continue;
    const key = messageKeyOf(m);
    if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * Poster claims under `prefix` whose message has no recorded ts, and still has none `graceMs` later:
 * the suites tally while their clocks still run, so a post may be in flight (claimed, not answered).
 */
export async function stuckClaims(redis: Redis, prefix: string, graceMs = 5_000): Promise<string[]> {
  const unrecorded = async (claims: string[]) => {
    const stuck: string[] = [];
    for (const claim of claims) {
      if (!(await redis.exists(claim.replace(/:claim:/, ':msg:')))) stuck.push(claim);
    }
    return stuck;
  };
  const stuck = await unrecorded(await scanKeys(redis, `${prefix}:*:claim:*`));
  if (stuck.length === 0) return stuck;
  await new Promise((resolve) => setTimeout(resolve, graceMs));
  return unrecorded(stuck);
}

export async function tally(scenario: string, slack: LocalSlack, redis: Redis, prefix: string, incidentIds: Iterable<string>): Promise<AlertFigures> {
  const counts = postsByKey(slack);
  const ids = [...new Set(incidentIds)];
  const details: string[] = [];
  let messagesPosted = 0;
  let duplicates = 0;
  let lost = 0;
  for (const id of ids) {
    const n = counts.get(id) ?? 0;
    messagesPosted += n;
    if (n > 1) {
      duplicates += 1;
      details.push(`duplicate (${n} messages): ${id}`);
    }
    if (n === 0) {
      lost += 1;
      details.push(`lost: ${id}`);
    }
  }
  // Thread replies (resolve replies, notes) have message keys of their own: one message each too.
  const everyKey = new Map<string, number>();
  for (const m of slack.messages()) {
    const key = messageKeyOf(m);
    if (key) everyKey.set(key, (everyKey.get(key) ?? 0) + 1);
  }
  for (const [key, n] of everyKey) {
    if (n > 1 && !ids.includes(key)) {
      duplicates += 1;
      details.push(`duplicate (${n} messages): ${key}`);
    }
  }
  const stuck = await stuckClaims(redis, prefix);
  details.push(...stuck.map((k) => `stuck claim: ${k}`));
  return { scenario, incidentsOpened: ids.length, messagesPosted, duplicates, lost, stuckClaims: stuck.length, details };
}

/** The figures as one fixed-width table. */
export function figuresTable(rows: AlertFigures[]): string {
  const header = ['scenario', 'incidents opened', 'messages posted', 'duplicates', 'lost', 'stuck claims'];
  const body = rows.map((r) => [r.scenario, r.incidentsOpened, r.messagesPosted, r.duplicates, r.lost, r.stuckClaims].map(String));
  if (rows.length > 1) {
    const sum = (f: (r: AlertFigures) => number) => String(rows.reduce((a, r) => a + f(r), 0));
    body.push(['total', sum((r) => r.incidentsOpened), sum((r) => r.messagesPosted), sum((r) => r.duplicates), sum((r) => r.lost), sum((r) => r.stuckClaims)]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...body.slice(0, rows.length).map(line), ...(rows.length > 1 ? [rule, line(body[body.length - 1]!)] : [])].join('\n');
}
