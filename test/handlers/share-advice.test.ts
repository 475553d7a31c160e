/**
 * "Share in thread" (the advice modal's submit) acks before any I/O: Slack gives a view submission
 * 3 s, so a slow store must not fail the submit; the advice still reaches the thread, and what fails
 * after the modal closed is told to the person ephemerally. Real app, local Slack over HTTP, real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import type { IncidentRecord } from '../../src/store/types.js';
import { CHANNEL, DEV, startHarness, type Harness } from './helpers/harness.js';
import { postAlert, seedScenario } from './helpers/seed.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const text = (json: unknown) => JSON.stringify(json);

/** An alert in #data-alerts and its advice modal, opened by Dev. */
async function openModal(): Promise<{ ts: string; modalId: string }> {
  let nowMs = 0;
  h = await startHarness({ now: () => nowMs });
  const seeded = await seedScenario(h.store, 'kafka-uncapped-overload-12pct');
  nowMs = seeded.nowMs;
  await h.store.routing.setRoute('query', seeded.queryId, CHANNEL);
  const { ts } = await postAlert(h.client, h.deps, seeded.incidents[0]!, CHANNEL);
  await h.slack.interactions.messageAction({ user: DEV, channel: CHANNEL, messageTs: ts, actionId: ACTION_IDS.tuningAdvice });
  const modal = await h.until(() => h!.slack.modals(DEV)[0]);
  return { ts, modalId: modal.id };
}

/** Replaces the store's incident read from now on (the modal is already open). */
function incidentsGet(replacement: (original: (id: string) => Promise<IncidentRecord | null>, id: string) => Promise<IncidentRecord | null>): void {
  const incidents = h!.store.incidents as { get: (id: string) => Promise<IncidentRecord | null> };
  const original = incidents.get.bind(incidents);
  incidents.get = (id) => replacement(original, id);
}

describe('Share in thread', () => {
  it('with a store answering in 3.2 s: the submit is acked at once and the advice reaches the thread', async () => {
    const { ts, modalId } = await openModal();
    // Under the production commandTimeout (5 s), over Slack's 3 s.
    incidentsGet(async (original, id) => {
      await new Promise((resolve) => setTimeout(resolve, 3200));
      return original(id);
    });
    const submitted = await h!.slack.interactions.submitView({ user: DEV, viewId: modalId });
    expect(submitted.delivery.failure).toBeUndefined();
    expect(submitted.delivery.status).toBe(200);
    expect(submitted.delivery.durationMs).toBeLessThan(3000);
    expect(h!.slack.modals(DEV)).toEqual([]);
    const shared = await h!.until(() => h!.slack.thread(CHANNEL, ts).find((m) => text(m.blocks).includes('Shared by')), 8000);
    expect(text(shared.blocks)).toContain(`Shared by <@${DEV}>`);
  }, 15_000);

  it('when the store fails after the ack, the person is told ephemerally and nothing is posted', async () => {
    const { ts, modalId } = await openModal();
    incidentsGet(async () => {
      throw new Error('Connection is closed.');
    });
    const before = h!.slack.thread(CHANNEL, ts).length;
    const submitted = await h!.slack.interactions.submitView({ user: DEV, viewId: modalId });
    expect(submitted.delivery.status).toBe(200);
    const told = await h!.until(() => h!.slack.ephemerals(CHANNEL, DEV).find((e) => e.text.includes('not shared')));
    expect(told.text).toBe('The advice was not shared in the thread. StreamDoctor could not reach its store (`streamdoctor_store_unavailable`). Try again in a minute; a status check shows what took effect.');
    expect(h!.slack.thread(CHANNEL, ts)).toHaveLength(before);
  });

  it('when the incident is gone by then, says so ephemerally', async () => {
    const { modalId } = await openModal();
    incidentsGet(async () => null);
    await h!.slack.interactions.submitView({ user: DEV, viewId: modalId });
    const told = await h!.until(() => h!.slack.ephemerals(CHANNEL, DEV).find((e) => e.text.includes('gone')));
    expect(told.text).toBe('This incident or its alert is gone, so there is no thread to share the advice in; nothing was posted.');
  });
});
