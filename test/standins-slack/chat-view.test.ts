/** The chat view: the page and its assets are served, the admin JSON API, and safe HTML rendering. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blocksHtml, messageBodyHtml } from '../../src/standins/slack/chat-view/block-kit-html.js';
import { mrkdwnToHtml } from '../../src/standins/slack/chat-view/mrkdwn-html.js';
import { LocalSlack, startLocalSlack } from '../../src/standins/slack/index.js';
import { ALERTS, callApi, LAG_ALERT, MARIA } from './helpers.js';

let slack: LocalSlack;
let app: Server;
let bodies: string[];

beforeEach(async () => {
  bodies = [];
  app = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      bodies.push(raw);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(raw.includes('command=%2Fstream') ? JSON.stringify({ text: '*3 streams* · 1 falling behind' }) : '');
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  slack = await startLocalSlack({ rateLimit: false, requestUrl: `http://127.0.0.1:${(app.address() as AddressInfo).port}/slack/events` });
});

afterEach(async () => {
  await slack.close();
  await new Promise<void>((resolve) => app.close(() => resolve()));
});

async function admin(path: string, body?: unknown): Promise<{ status: number; json: Record<string, any> }> {
  const res = await fetch(`${slack.url}/admin/${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

describe('the page', () => {
  it('serves the HTML with the test ids and a strict CSP, and its scripts and styles', async () => {
    const page = await fetch(`${slack.url}/`);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    for (const id of ['command-box', 'home-tab', 'thread-panel', 'messages', 'user-picker']) expect(html).toContain(`data-testid="${id}"`);
    for (const asset of ['chat-view.js', 'block-kit-html.js', 'mrkdwn-html.js', 'chat-view.css']) {
      const res = await fetch(`${slack.url}/assets/${asset}`);
      expect(res.status).toBe(200);
      expect((await res.text()).length).toBeGreaterThan(500);
    }
    expect((await fetch(`${slack.url}/assets/../local-slack.ts`)).status).toBe(404);
    expect((await fetch(`${slack.url}/assets/static-assets.ts`)).status).toBe(404);
  });

  it('redirects a permalink to the message in the chat view', async () => {
    const res = await fetch(`${slack.url}/archives/${ALERTS}/p1795939950000100`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/#channel=${ALERTS}&ts=1795939950.000100`);
  });
});

describe('admin API', () => {
  it('describes the workspace and a channel as one person sees it', async () => {
    await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, ...LAG_ALERT.open });
    await callApi(slack.apiUrl, 'chat.postEphemeral', { channel: ALERTS, user: MARIA, text: 'only Maria' });
    const state = await admin('state');
    expect(state.json).toMatchObject({ team: { id: 'T0STREAMDR' }, bot: { name: 'StreamDoctor' }, command: '/stream', default_user: MARIA });
    expect(state.json.channels.find((c: { id: string }) => c.id === ALERTS)).toMatchObject({ name: 'data-alerts', message_count: 1 });
    const maria = await admin(`channels/${ALERTS}/messages?user=${MARIA}`);
    expect(maria.json.messages).toHaveLength(1);
    expect(maria.json.messages[0].blocks[0]).toMatchObject({ type: 'header' });
    expect(maria.json.ephemerals.map((e: { text: string }) => e.text)).toEqual(['only Maria']);
    const dev = await admin(`channels/${ALERTS}/messages?user=U0DEV00002`);
    expect(dev.json.ephemerals).toEqual([]);
    expect((await admin('channels/C0NOWHERE1/messages')).status).toBe(404);
    await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'second' });
    const latest = await admin(`channels/${ALERTS}/messages?user=${MARIA}&limit=1`);
    expect(latest.json.messages.map((m: { text: string }) => m.text)).toEqual(['second']);
    expect(latest.json.omitted).toBe(1);
  });

  it('runs a command as the person: signed to the app, echoed, answered ephemerally', async () => {
    const res = await admin('command', { user: MARIA, channel: ALERTS, text: 'status' });
    expect(res.json).toMatchObject({ ok: true, status: 200 });
    expect(new URLSearchParams(bodies[0]!).get('text')).toBe('status');
    const seen = await admin(`channels/${ALERTS}/messages?user=${MARIA}`);
    expect(seen.json.ephemerals.map((e: { text: string; ephemeral_source: string }) => [e.ephemeral_source, e.text])).toEqual([
      ['command_echo', '/stream status'],
      ['ack', '*3 streams* · 1 falling behind'],
    ]);
  });

  it('clicks a button, posts messages and threads, opens Home', async () => {
    const posted = await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, ...LAG_ALERT.open });
    expect((await admin('action', { user: MARIA, channel: ALERTS, ts: posted.json.ts, action_id: 'incident_acknowledge' })).json.ok).toBe(true);
    expect(JSON.parse(new URLSearchParams(bodies[0]!).get('payload')!).actions[0].action_id).toBe('incident_acknowledge');
    const reply = await admin('message', { user: MARIA, channel: ALERTS, text: 'on it', thread_ts: posted.json.ts });
    expect(reply.json.ok).toBe(true);
    const thread = await admin(`channels/${ALERTS}/threads/${posted.json.ts}?user=${MARIA}`);
    expect(thread.json.messages.map((m: { text: string }) => m.text)).toEqual([LAG_ALERT.open.text, 'on it']);
    expect((await admin('home-opened', { user: MARIA })).json.ok).toBe(true);
    expect(JSON.parse(bodies.at(-1)!).event.type).toBe('app_home_opened');
  });

  it('answers bad input with 400 and a clear message, and loses nothing', async () => {
    const missing = await admin('command', { channel: ALERTS, text: 'status' });
    expect(missing).toMatchObject({ status: 400, json: { ok: false } });
    expect(missing.json.error).toContain('user');
    const unknownUser = await admin('command', { user: 'U0NOBODY01', channel: ALERTS, text: 'status' });
    expect(unknownUser).toMatchObject({ status: 400, json: { code: 'streamdoctor_local_slack_unknown_user' } });
    const notJson = await fetch(`${slack.url}/admin/command`, { method: 'POST', body: '{oops' });
    expect(notJson.status).toBe(400);
    expect((await fetch(`${slack.url}/admin/channels/%E0%A4%A/messages`)).status).toBe(400);
    expect((await fetch(`${slack.url}/admin/nothing-here`)).status).toBe(404);
    expect(bodies).toEqual([]);
  });

  it('streams changes as server-sent events', async () => {
    const controller = new AbortController();
    const res = await fetch(`${slack.url}/admin/events`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    await callApi(slack.apiUrl, 'chat.postMessage', { channel: ALERTS, text: 'x' });
    const deadline = Date.now() + 3000;
    while (!text.includes('event: change') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
    }
    controller.abort();
    expect(text).toContain('event: hello');
    expect(text).toMatch(/event: change\ndata: \{"kind":"message","channel":"C0DATAALRT","version":\d+\}/);
  });
});

describe('rendering to HTML', () => {
  const ctx = { users: { U0MARIA001: 'maria' }, channels: { C0DATAALRT: 'data-alerts' } };

  it('renders the alert: header, fields, buttons by action_id, the silence menu and the URL button', () => {
    const html = blocksHtml(LAG_ALERT.open.blocks, ctx);
    expect(html).toContain('<div class="bk-header">🔴 Falling behind · orders-enrich</div>');
    expect(html).toContain('<b>Time behind</b><br>14m 20s');
    expect(html).toContain('data-testid="button-incident_acknowledge"');
    expect(html).toMatch(/<select class="bk-select" data-action-id="incident_silence"[^>]*><option value="" disabled selected>Silence…<\/option><option value="1800000">Silence 30 minutes<\/option>/);
    expect(html).toContain('href="https://adb-1234567890123456.7.azuredatabricks.net/#job/1042/run/88121"');
    expect(html).toContain('<code>maxOffsetsPerTrigger = 1100000</code>');
    // <!date^…> renders as a time, never as raw markup.
    expect(html).not.toContain('&lt;!date');
  });

  it('never lets message text become markup', () => {
    const hostile = '<img src=x onerror=alert(1)> "quoted" <javascript:alert(1)|click> <https://ok.example/a?b=1&c=2|fine> &lt;b&gt;';
    const html = mrkdwnToHtml(hostile, ctx);
    expect(html).not.toMatch(/<img|<b>|href="javascript/i);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('<a href="https://ok.example/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">fine</a>');
    expect(html).toContain('&lt;b&gt;');
    const blocks = blocksHtml([
      { type: 'header', text: { type: 'plain_text', text: '<script>alert(1)</script>' } },
      { type: 'actions', block_id: '"><script>', elements: [{ type: 'button', action_id: '" onclick="x', text: { type: 'plain_text', text: '<b>x</b>' }, url: 'javascript:alert(1)' }] },
      { type: 'image', image_url: 'javascript:alert(1)', alt_text: 'x' },
    ]);
    expect(blocks).not.toMatch(/<script|<b>|javascript:|" onclick/);
    expect(blocks).toContain('data-action-id="&quot; onclick=&quot;x"');
  });

  it('renders mrkdwn: styles, code, quotes, mentions, channel links, lists', () => {
    expect(mrkdwnToHtml('*bold* _italic_ ~gone~ `a*b*c` ```x\n*y*```', ctx)).toBe('<b>bold</b> <i>italic</i> <s>gone</s> <code>a*b*c</code> <pre>x\n*y*</pre>');
    expect(mrkdwnToHtml('> quoted\nnot', ctx)).toBe('<blockquote>quoted</blockquote>not');
    expect(mrkdwnToHtml('<@U0MARIA001> in <#C0DATAALRT>', ctx)).toBe('<span class="mention" data-user="U0MARIA001">@maria</span> in <a class="mention channel-link" href="#channel=C0DATAALRT">#data-alerts</a>');
    expect(mrkdwnToHtml('• one\n• two', ctx)).toBe('<span class="list-item">• one</span><br><span class="list-item">• two</span>');
    expect(mrkdwnToHtml('snake_case_name 2*3*4')).toBe('snake_case_name 2*3*4');
  });

  it('renders files, attachments with colour bars, and falls back to text without blocks', () => {
    const html = messageBodyHtml({
      text: 'fallback *text*',
      attachments: [{ color: '#E01E5A', title: 'orders-enrich', text: 'behind', fields: [{ title: 'Lag', value: '14m', short: true }] }, { color: 'good', text: 'ok' }, { color: 'red;}', text: 'x' }],
      files: [{ id: 'F0000000001', name: 'chart.png', title: 'Time behind', mimetype: 'image/png' }, { id: 'F0000000002', name: 'p.json', mimetype: 'application/json', size: 10 }],
    });
    expect(html).toContain('<b>text</b>');
    expect(html).toContain('data-color="#E01E5A"');
    expect(html).toContain('data-color-name="good"');
    expect(html).not.toContain('red;}');
    expect(html).toContain('<img src="/admin/files/F0000000001"');
    expect(html).toContain('data-testid="file-card"');
  });
});
