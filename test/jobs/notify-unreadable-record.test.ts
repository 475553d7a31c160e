/**
 * Incident records notify cannot read as written: one that can never be rendered (incident JSON cut
 * short, an incident of another shape) fails its job once, saying why and what to do, with an error
 * line naming the record; one an older release wrote without causes/advice, or whose version is no
 * count, is posted with a warning. Never 'gone' in silence, never a TypeError retried for an hour.
 */
import { describe, expect, it } from 'vitest';
import { incidentIdOf } from '../../src/store/index.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { lagIncident } from '../store/fixtures.js';
import { commitAndDrain, notifyWorkerPerTest, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();
const QID = '0a1b2c3d-0000-4000-8000-00000000e002';
const incident = lagIncident('2026-11-29T10:06:40.000Z');
const ID = incidentIdOf(QID, incident);

/** Commits an opening, damages its record before notify reads it, then lets the job run. */
async function openDamaged(patch: (hash: Record<string, string>) => Record<string, string>) {
  const { lines, logger } = capturedLogger();
  const { runtime: rt, slack } = await worker.start('unreadable', { logger, channelIntervalMs: 0 });
  await rt.store.streams.upsert({ queryId: QID, name: 'orders' });
  await rt.store.queries.commitChanges(QID, [{ type: 'opened', queryId: QID, queryName: 'orders', incident }]);
  const key = rt.store.keys.incident(QID, ID);
  await rt.redis.hset(key, patch(await rt.redis.hgetall(key)));
  await commitAndDrain(rt, QID, []); // drains the intent
  return { rt, slack, lines };
}

describe('incident records notify cannot read as written', () => {
  it.each([
    ['its incident JSON cut short', (h: Record<string, string>) => ({ incident: h.incident!.slice(0, 40) }), 'not JSON'],
    ['an incident of another shape ({})', () => ({ incident: '{}' }), 'not an incident'],
  ])('%s: fails once, saying why, and logs the record', async (_what, patch, why) => {
    const { rt, lines } = await openDamaged(patch);
    const failed = await waitFor(async () => (await rt.queues.notify.getFailed())[0], 'the notify job failed', 10_000);
    expect(failed.attemptsMade).toBe(1);
    expect(failed.failedReason).toContain(`streamdoctor_incident_unreadable: incident ${ID} cannot be rendered`);
    expect(failed.failedReason).toContain(why);
    expect(lines.some((l) => l.level === 'error' && l.incidentId === ID && typeof l.fix === 'string')).toBe(true);
  });

  it.each([
    ['without causes and advice (older shape)', (h: Record<string, string>) => {
      const { causes: _c, advice: _a, ...older } = JSON.parse(h.incident!) as Record<string, unknown>;
      return { incident: JSON.stringify(older) };
    }],
    ['whose version is no count', () => ({ version: 'abc' })],
  ])('%s: posted, with a warning naming the record', async (_what, patch) => {
    const { rt, slack, lines } = await openDamaged(patch);
    await waitFor(() => slack.messages('C0DATAALRT').length === 1, 'the alert posted');
    expect(await rt.queues.notify.getFailedCount()).toBe(0);
    expect(lines.some((l) => l.level === 'warn' && l.incidentId === ID && typeof l.problem === 'string')).toBe(true);
  });
});
