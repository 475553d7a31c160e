/**
 * An outbox entry that is not what the commits write: `<id>|<version>` (its change lost) still
 * notifies, since notify renders the record's latest version; one naming no incident and version is
 * dropped with an error line saying what it was. Never silently. Real Redis, worker, local Slack.
 */
import { describe, expect, it } from 'vitest';
import { drainOutbox } from '../../jobs/notify-intents.js';
import { incidentIdOf } from '../../src/store/index.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { lagIncident } from '../store/fixtures.js';
import { notifyWorkerPerTest, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();
const QID = '0a1b2c3d-0000-4000-8000-00000000e001';

describe('outbox entries not as committed', () => {
  it('an entry without its change is still notified; garbage is dropped with an error line', async () => {
    const { lines, logger } = capturedLogger();
    const { runtime: rt, slack } = await worker.start('outbox-salvage', { logger, channelIntervalMs: 0 });
    const incident = lagIncident('2026-11-29T10:06:40.000Z');
    const id = incidentIdOf(QID, incident);
    await rt.store.streams.upsert({ queryId: QID, name: 'orders' });
    await rt.store.queries.commitChanges(QID, [{ type: 'opened', queryId: QID, queryName: 'orders', incident }]);
    const key = rt.store.keys.outbox(QID);
    await rt.redis.del(key);
    await rt.redis.rpush(key, `${id}|1`, 'not-an-intent');

    expect(await drainOutbox(rt.store, rt.queues, QID, Date.now(), logger)).toBe(1);
    expect(await rt.redis.llen(key)).toBe(0);
    await waitFor(() => slack.messages('C0DATAALRT').length === 1, 'the alert posted');
    expect(lines.some((l) => l.level === 'warn' && l.queryId === QID && l.entry === `${id}|1` && String(l.msg).includes('without its change'))).toBe(true);
    expect(lines.some((l) => l.level === 'error' && l.queryId === QID && l.entry === 'not-an-intent' && String(l.msg).includes('dropped'))).toBe(true);
  });
});
