/**
 * Slack misbehaving while incidents open, change and resolve, and mutes start and end: 429 storms
 * (Retry-After), 500/503 before anything happened, 500 after the message was posted, answers slower than
 * the client's timeout (the message posted meanwhile), connections reset after the work, and history
 * lookups failing. Two workers share the queues; the local Slack's own per-channel rate limit is on.
 * Afterwards: one message per incident (muted ones posted once their mute ended), no message key twice,
 * no claim stuck, no notify job given up.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { WebClientChat } from '../../src/slack/gateway/slack-chat.js';
import type { Incident } from '../../src/diagnosis/types.js';
import { startWorker, type WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { startLocalSlack, type LocalSlack, type SlackFaultRule } from '../../src/standins/slack/index.js';
import { incidentIdOf } from '../../src/store/index.js';
import { lagIncident } from '../store/fixtures.js';
import { tally } from '../helpers/alert-ledger.js';
import { deletePrefix, TEST_REDIS_URL } from '../helpers/redis.js';
import { commitAndDrain, silentLogger, uniquePrefix, unusedTrackers } from '../pipeline/helpers/harness.js';
import { settle } from './helpers/settle.js';
import { faultsSeed, recordFigures, seededRandom } from './helpers/figures.js';

const CHANNELS = ['C0DATAALRT', 'C0STREAMNG', 'C0GENERAL1'];
const p = uniquePrefix('slackfaults');
const runtimes: WorkerRuntime[] = [];
let slack: LocalSlack | undefined;

afterAll(async () => {
  for (const rt of runtimes) await rt.close();
  await slack?.close();
  await deletePrefix(TEST_REDIS_URL, p.prefix);
});

const QID = (i: number) => `51ac0000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Slack faults and mutes during incidents', () => {
  it('429 storms, 5xx, timeouts and resets with mutes starting and ending: nothing lost, nothing doubled', async () => {
    const rng = seededRandom(faultsSeed() ^ 0x51ac);
    // 40 rounds of incident changes run in seconds, not hours: chat.update's Tier 3 budget (50 a
    // minute) would hold updates back for most of the run. 429s come as injected faults here instead.
    slack = await startLocalSlack({ rateLimit: { updatesPerMinute: 10_000 } });
    for (let w = 0; w < 2; w++) {
      runtimes.push(
        await startWorker({
          redisUrl: TEST_REDIS_URL,
          ...p,
          logger: silentLogger,
          sources: new Map(),
          trackers: unusedTrackers,
          // A short client timeout, so a slow Slack answer is a timeout with the message posted.
          chat: new WebClientChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: slack.apiUrl, timeoutMs: 1000 }),
          routing: { defaultChannel: 'C0DATAALRT' },
          store: { storm: { threshold: 1000 } },
        }),
      );
    }
    const rt = runtimes[0]!;
    const incident: Incident = lagIncident(new Date(Date.now() - 60_000).toISOString());
    const opened: string[] = [];
    const open = new Set<number>();
    let next = 0;

    const openOne = async (muteMs = 0): Promise<number> => {
      const i = next++;
      const queryId = QID(i);
      await rt.store.streams.upsert({ queryId, name: `payments_${i}` });
      await rt.store.routing.setRoute('query', queryId, CHANNELS[i % CHANNELS.length]!);
      if (muteMs > 0) await rt.store.silences.silence(queryId, Date.now() + muteMs, 'U0MARIA001');
      await commitAndDrain(rt, queryId, [{ type: 'opened', queryId, queryName: `payments_${i}`, incident }]);
      opened.push(incidentIdOf(queryId, incident));
      open.add(i);
      return i;
    };
    const updateSome = async (round: number) => {
      for (let u = 0; u < 2 && open.size > 0; u++) {
        const pick = [...open][Math.floor(rng() * open.size)]!;
        const q = QID(pick);
        await commitAndDrain(rt, q, [{ type: 'updated', queryId: q, queryName: null, incident: { ...incident, summary: `${incident.summary} (round ${round})`, metrics: { ...incident.metrics, timeBehindSec: 400 + round } } }]);
      }
    };
    const resolveOnePosted = async () => {
      for (const candidate of open) {
        const record = await rt.store.incidents.get(incidentIdOf(QID(candidate), incident));
        if (!record?.slack || (await rt.store.silences.get(QID(candidate)))) continue;
        const q = QID(candidate);
        await commitAndDrain(rt, q, [{ type: 'resolved', queryId: q, queryName: null, incident: { ...incident, resolvedAt: new Date().toISOString(), resolvedAtBatchId: 60 } }], { health: 'ok' });
        open.delete(candidate);
        return;
      }
    };

    const phases: { name: string; faults: SlackFaultRule[] }[] = [
      { name: '429 storm', faults: [{ kind: 'rate_limit', method: 'chat.postMessage', times: 12, retryAfterSec: 1 }, { kind: 'rate_limit', method: 'chat.update', times: 6, retryAfterSec: 2 }] },
      {
        name: '5xx before',
        // Posts are the calls every round makes; updates coalesce (a job renders the latest version).
        faults: [{ kind: 'server_error', method: 'chat.postMessage', times: 3 }, { kind: 'unavailable', method: 'chat.postMessage', times: 3, retryAfterSec: 1 }, { kind: 'unavailable', method: 'chat.update', times: 3 }],
      },
      { name: '5xx after the post', faults: [{ kind: 'server_error_after', method: 'chat.postMessage', times: 5 }, { kind: 'server_error', method: 'conversations.history', times: 2 }] },
      { name: 'timeouts', faults: [{ kind: 'slow', method: 'chat.postMessage', times: 4, delayMs: 1800 }, { kind: 'slow', method: 'chat.update', times: 3, delayMs: 1800 }] },
      { name: 'resets', faults: [{ kind: 'reset_after', method: 'chat.postMessage', times: 4 }, { kind: 'reset_after', method: 'chat.update', times: 3 }] },
    ];
    let round = 0;
    let mutedCount = 0;
    let lateMutes = 0;
    for (const phase of phases) {
      // Each phase's faults are the ones in force (an unspent rule of the phase before is dropped).
      slack.faults.clear();
      for (const rule of phase.faults) slack.faults.inject(rule);
      for (let k = 0; k < 8; k++) {
        round += 1;
        // About one opening in four is muted: some mutes end within the run, one outlives a few phases.
        const muted = rng() < 0.25 ? 1500 + Math.floor(rng() * 4000) : 0;
        if (muted) mutedCount += 1;
        await openOne(muted);
        await updateSome(round);
        if (round % 3 === 0) await resolveOnePosted();
        if (round % 7 === 0) {
          // A mute that starts on an incident already posted, and ends a few seconds later.
          const posted = [...open].find((i) => i % 2 === 0);
          if (posted !== undefined) {
            await rt.store.silences.silence(QID(posted), Date.now() + 2500, 'U0MARIA001');
            lateMutes += 1;
          }
        }
        await sleep(300);
      }
      await sleep(700);
    }
    const hits = slack.faults.hitCounts();
    process.stdout.write(`slack faults: ${round} rounds, faults hit ${JSON.stringify(hits)}\n`);
    // Every kind of fault was met by the bot at least once.
    for (const kind of ['rate_limit', 'server_error', 'unavailable', 'server_error_after', 'slow', 'reset_after'] as const) expect(hits[kind] ?? 0, kind).toBeGreaterThan(0);
    slack.faults.clear();

    await settle(rt, opened, 120_000);
    const failed = await rt.queues.notify.getJobs(['failed'], 0, 100);
    expect(failed.map((j) => `${j.id}: ${j.failedReason}`)).toEqual([]);

    const figures = await tally('Slack 429 storms, 5xx, timeouts, resets + mutes', slack, rt.redis, p.prefix, opened);
    recordFigures({ ...figures, notes: [`faults hit ${JSON.stringify(hits)}; ${mutedCount} openings muted first, ${lateMutes} mutes started on posted alerts`] });
    expect(figures.details).toEqual([]);
    expect(figures).toMatchObject({ duplicates: 0, lost: 0, stuckClaims: 0 });
  }, 240_000);
});
