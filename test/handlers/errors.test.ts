/** A failing collaborator never leaves a person without an answer, and the log says what failed. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { CHANNEL, MARIA, startHarness, type Harness } from './helpers/harness.js';
import { postAlert, seedScenario } from './helpers/seed.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

describe('listener failures', () => {
  it('a command whose store call throws gets a private apology with a code, and one log line', async () => {
    const original = h.store.streams.list.bind(h.store.streams);
    h.store.streams.list = async () => {
      throw Object.assign(new Error('READONLY You can\'t write against a read only replica. token xoxb-123-456-abc'), { code: 'streamdoctor_store_unavailable' });
    };
    try {
      const outcome = await h.slack.interactions.slashCommand({ user: MARIA, channel: CHANNEL, text: 'status all' });
      expect(outcome.delivery.status).toBe(200);
      const reply = await h.until(() => h.slack.responses().find((r) => r.url === outcome.responseUrl && r.responses.length > 0));
      const answer = reply.responses[0] as { text: string; response_type: string };
      expect(answer.response_type).toBe('ephemeral');
      expect(answer.text).toContain('could not reach its store (`streamdoctor_store_unavailable`)');
      expect(answer.text).not.toContain('READONLY');
      const line = await h.until(() => h.logLines.find((l) => l.includes('slack listener command:stream failed')));
      expect(line).toContain('streamdoctor_store_unavailable');
      expect(line).not.toContain('xoxb-123-456-abc');
    } finally {
      h.store.streams.list = original;
    }
  });

  it('a button on an alert deleted in Slack still records the change; notify posts the alert anew, never an error', async () => {
    const stream = await seedScenario(h.store, 'kafka-partition-bound');
    const { ts } = await postAlert(h.client, h.deps, stream.incidents[0]!, CHANNEL);
    await h.client.chat.delete({ channel: CHANNEL, ts }); // the message is gone: chat.update will fail
    await h.store.incidents.setSlackRef(stream.incidents[0]!.id, { channel: CHANNEL, ts });
    const { renderIncidentMessage } = await import('../../src/slack/render/incident-message.js');
    const copy = renderIncidentMessage(stream.incidents[0]!, { nowMs: stream.nowMs });
    const posted = await h.client.chat.postMessage({ channel: CHANNEL, text: copy.text, blocks: copy.blocks });
    const before = h.slack.messages(CHANNEL).length;
    const outcome = await h.slack.interactions.messageAction({ user: MARIA, channel: CHANNEL, messageTs: posted.ts as string, actionId: ACTION_IDS.acknowledge });
    expect(outcome.delivery.status).toBe(200);
    await h.until(async () => (await h.store.incidents.get(stream.incidents[0]!.id))?.acknowledgedBy === MARIA);
    // The refresh is the notify job's: the alert's message is gone, so it is posted anew (the one new
    // top-level message), and nothing about the failed update reaches the channel.
    const reposted = await h.until(() => h.slack.messages(CHANNEL).find((m) => (m.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key === stream.incidents[0]!.id), 8000);
    expect(h.slack.messages(CHANNEL).length).toBe(before + 1);
    await h.until(() => h.slack.thread(CHANNEL, reposted.ts).some((m) => /acknowledged/i.test(m.text)));
    expect((await h.store.incidents.get(stream.incidents[0]!.id))!.slack).toEqual({ channel: CHANNEL, ts: reposted.ts });
  });
});
