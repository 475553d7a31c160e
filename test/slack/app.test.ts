/** The app factory: configuration errors say what to set; extra routes share the port; Socket Mode is picked by the app token. */
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
