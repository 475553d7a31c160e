/** The app factory: configuration errors say what to set; extra routes share the port; Socket Mode is picked by the app token. */
import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { SlackAppConfigError, createSlackApp } from '../../src/runtime/slack-app.js';
import type { SlackDeps } from '../../src/slack/deps.js';
import { PermissionChecker } from '../../src/slack/permissions.js';
import { errorCode, userFacingError } from '../../src/slack/listener-guard.js';

const logger = createLogger({ name: 'app-test', level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });
// The factory only wires listeners; nothing here touches the store.
const deps = { store: {} as SlackDeps['store'], permissions: new PermissionChecker(), logger } satisfies SlackDeps;

describe('createSlackApp', () => {
  it('says which variable is missing', () => {
    expect(() => createSlackApp({ signingSecret: 's', logger, deps })).toThrow(/SLACK_BOT_TOKEN/);
    expect(() => createSlackApp({ botToken: 'xoxb-1', logger, deps })).toThrow(/SLACK_SIGNING_SECRET/);
    expect(() => createSlackApp({ botToken: 'xoxb-1', socketMode: true, logger, deps })).toThrow(/SLACK_APP_TOKEN/);
    try {
      createSlackApp({ botToken: 'xoxb-1', logger, deps });
    } catch (error) {
      expect(error).toBeInstanceOf(SlackAppConfigError);
      expect((error as SlackAppConfigError).code).toBe('streamdoctor_config_invalid');
    }
  });

  it('uses Socket Mode when an app token is set, HTTP otherwise', async () => {
    const socket = createSlackApp({ botToken: 'xoxb-1', appToken: 'xapp-1-A1-1-abc', logger, deps });
    expect(socket.mode).toBe('socket');
    const http = createSlackApp({ botToken: 'xoxb-1', signingSecret: 's', logger, deps });
    expect(http.mode).toBe('http');
  });

  it('serves custom routes (health, metrics) on the same port as /slack/events', async () => {
    const handle = createSlackApp({
      botToken: 'xoxb-1',
      signingSecret: 'secret',
      logger,
      deps,
      customRoutes: [{ path: '/healthz', method: 'GET', handler: (_req, res) => res.end('ok') }],
    });
    const { port } = await handle.start(0);
    try {
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(await health.text()).toBe('ok');
      const unsigned = await fetch(`http://127.0.0.1:${port}/slack/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"type":"url_verification","challenge":"x"}' });
      expect(unsigned.status).toBe(401);
    } finally {
      await handle.stop();
    }
  });
});

describe('request bodies', () => {
  const sign = (secret: string, body: string) => {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
    return { 'x-slack-signature': signature, 'x-slack-request-timestamp': String(timestamp) };
  };

  it('answers 400 to a signed JSON body that is not an object, and the process goes on', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    const handle = createSlackApp({ botToken: 'xoxb-1', signingSecret: 'secret', logger, deps });
    const { port } = await handle.start(0);
    try {
      const post = (body: string, contentType = 'application/json', headers: Record<string, string> = sign('secret', body)) =>
        fetch(`http://127.0.0.1:${port}/slack/events`, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body });
      for (const body of ['null', '[]', '"x"', '1']) expect((await post(body)).status, body).toBe(400);
      expect((await post(`payload=${encodeURIComponent('null')}`, 'application/x-www-form-urlencoded')).status).toBe(400);
      // Unsigned stays Bolt's 401; a signed object still reaches Bolt (url_verification is answered).
      expect((await post('null', 'application/json', {})).status).toBe(401);
      const challenge = await post('{"type":"url_verification","challenge":"abc"}');
      expect(challenge.status).toBe(200);
      expect(await challenge.text()).toContain('abc');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
      await handle.stop();
    }
  });
});

describe('stop', () => {
  it('closes a stalled request\'s connection after its grace instead of waiting for the client', async () => {
    const handle = createSlackApp({ botToken: 'xoxb-1', signingSecret: 'secret', logger, deps, requestGraceMs: 200 });
    const { port } = await handle.start(0);
    // A client that sends half a request and then nothing (Node would wait for the rest). Its
    // signature headers get it past the checks made before the body is read.
    const socket = connect(port!, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const signed = `X-Slack-Request-Timestamp: ${Math.floor(Date.now() / 1000)}\r\nX-Slack-Signature: v0=00\r\n`;
    socket.write(`POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${signed}Content-Length: 100\r\n\r\n{"type":`);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    const stopped = await Promise.race([handle.stop().then(() => 'stopped'), new Promise((resolve) => setTimeout(() => resolve('still waiting'), 3_000))]);
    expect(stopped).toBe('stopped');
    expect(Date.now() - started).toBeLessThan(2_000);
    await closed;
    socket.destroy();
  });
});

describe('error replies', () => {
  it('give people a stable code and an action, never a stack', () => {
    const platform = Object.assign(new Error('An API error occurred: not_in_channel'), { code: 'slack_webapi_platform_error', data: { error: 'not_in_channel' } });
    expect(userFacingError(platform)).toContain('invite the app');
    expect(userFacingError(new TypeError('x is undefined'))).toBe(
      'Sorry, that did not work (`streamdoctor_internal_error`). It is logged for the team running StreamDoctor; try again in a minute.',
    );
    expect(errorCode({ code: 'streamdoctor_store_invalid' })).toBe('streamdoctor_store_invalid');
  });
});
