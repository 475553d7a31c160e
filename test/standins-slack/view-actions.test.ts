/** Clicks inside views and ephemerals: block_actions with a view container, views.push, view_closed. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalSlack, startLocalSlack } from '../../src/standins/slack/index.js';
import { ALERTS, callApi, MARIA } from './helpers.js';

let slack: LocalSlack;
let app: Server;
let payloads: Record<string, any>[];

beforeEach(async () => {
  payloads = [];
  app = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const payload = new URLSearchParams(raw).get('payload');
      if (payload) payloads.push(JSON.parse(payload));
      res.writeHead(200);
      res.end();
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  slack = await startLocalSlack({ rateLimit: false, requestUrl: `http://127.0.0.1:${(app.address() as AddressInfo).port}/slack/events` });
});

afterEach(async () => {
  await slack.close();
  await new Promise<void>((resolve) => app.close(() => resolve()));
});

const HOME = {
  type: 'home',
  blocks: [
    { type: 'header', text: { type: 'plain_text', text: 'Silenced streams' } },
    {
      type: 'section',
      block_id: 'silence:orders-enrich',
      text: { type: 'mrkdwn', text: '`orders-enrich` silenced until 11:00' },
      accessory: { type: 'button', action_id: 'home_unsilence', text: { type: 'plain_text', text: 'Unsilence' }, value: 'a1b2c3d4-5e6f' },
    },
  ],
};

describe('actions inside views', () => {
  it('a Home tab button sends block_actions with a view container and the view', async () => {
    const published = await callApi(slack.apiUrl, 'views.publish', { user_id: MARIA, view: HOME });
    await slack.interactions.viewAction({ user: MARIA, viewId: published.json.view.id, actionId: 'home_unsilence' });
    expect(payloads[0]).toMatchObject({
      type: 'block_actions',
      container: { type: 'view', view_id: published.json.view.id },
      view: { id: published.json.view.id, type: 'home' },
      actions: [{ action_id: 'home_unsilence', block_id: 'silence:orders-enrich', value: 'a1b2c3d4-5e6f', type: 'button' }],
    });
    expect(payloads[0]!.response_url).toBeUndefined();
  });

  it('pushes a second modal with a fresh trigger_id, and view_closed is sent only when asked for', async () => {
    const { triggerId } = await slack.interactions.slashCommand({ user: MARIA, channel: ALERTS, text: 'tune' });
    const modal = (title: string, extra: Record<string, unknown> = {}) => ({
      type: 'modal',
      title: { type: 'plain_text', text: title },
      blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: 'more', text: { type: 'plain_text', text: 'More advice' } }] }],
      ...extra,
    });
    const opened = await callApi(slack.apiUrl, 'views.open', { trigger_id: triggerId, view: modal('Tuning advice', { notify_on_close: true }) });
    await slack.interactions.viewAction({ user: MARIA, viewId: opened.json.view.id, actionId: 'more' });
    const click = payloads[0]!;
    const pushed = await callApi(slack.apiUrl, 'views.push', { trigger_id: click.trigger_id, view: modal('All advice') });
    expect(pushed.json.view).toMatchObject({ root_view_id: opened.json.view.id, previous_view_id: opened.json.view.id });
    expect(slack.modals(MARIA).map((v) => (v.title as { text: string }).text)).toEqual(['Tuning advice', 'All advice']);
    await slack.interactions.closeView({ user: MARIA, viewId: pushed.json.view.id });
    expect(payloads).toHaveLength(1);
    await slack.interactions.closeView({ user: MARIA, viewId: opened.json.view.id });
    expect(payloads[1]).toMatchObject({ type: 'view_closed', view: { id: opened.json.view.id } });
    expect(slack.modals(MARIA)).toEqual([]);
  });

  it('a button in an ephemeral message can be replaced through its response_url', async () => {
    await callApi(slack.apiUrl, 'chat.postEphemeral', {
      channel: ALERTS,
      user: MARIA,
      text: 'Mute orders-enrich?',
      blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: 'confirm_mute', text: { type: 'plain_text', text: 'Mute for 2h' }, style: 'danger' }] }],
    });
    const [ephemeral] = slack.ephemerals(ALERTS, MARIA);
    await slack.interactions.messageAction({ user: MARIA, channel: ALERTS, messageTs: ephemeral!.ts, actionId: 'confirm_mute', ephemeral: true });
    expect(payloads[0]).toMatchObject({ container: { is_ephemeral: true, message_ts: ephemeral!.ts }, actions: [{ style: 'danger' }] });
    const res = await fetch(payloads[0]!.response_url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ replace_original: true, text: 'Muted orders-enrich for 2h' }) });
    expect(res.status).toBe(200);
    expect(slack.ephemerals(ALERTS, MARIA).map((e) => e.text)).toEqual(['Muted orders-enrich for 2h']);
    // Someone else cannot click Maria's ephemeral.
    await expect(slack.interactions.messageAction({ user: 'U0DEV00002', channel: ALERTS, messageTs: ephemeral!.ts, actionId: 'confirm_mute', ephemeral: true })).rejects.toThrow('no such ephemeral');
  });
});
