/** `streamdoctor local-slack`: flags, and the real command printing a chat view URL that answers. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseLocalSlackFlags } from '../../src/cli/commands/local-slack.js';

const BIN = fileURLToPath(new URL('../../bin/streamdoctor.mjs', import.meta.url));

describe('flags', () => {
  it('has demo defaults and reads SLACK_REQUEST_URL', () => {
    expect(parseLocalSlackFlags([], {})).toEqual({ port: 3100, host: '127.0.0.1', requestUrl: 'http://127.0.0.1:3000/slack/events', rateLimit: true });
    expect(parseLocalSlackFlags([], { SLACK_REQUEST_URL: 'http://127.0.0.1:4000/slack/events' })).toMatchObject({ requestUrl: 'http://127.0.0.1:4000/slack/events' });
    expect(parseLocalSlackFlags(['--port=0', '--no-rate-limit', '--request-url', 'http://127.0.0.1:5/x'], {})).toEqual({ port: 0, host: '127.0.0.1', requestUrl: 'http://127.0.0.1:5/x', rateLimit: false });
  });

  it('says what to write instead of a bad flag', () => {
    expect(parseLocalSlackFlags(['--port', 'abc'], {})).toEqual({ error: '--port needs a number from 0 to 65535, got "abc"' });
    expect(parseLocalSlackFlags(['--request-url', 'ftp://x'], {})).toEqual({ error: '--request-url needs an http(s) URL, got "ftp://x"' });
    expect(parseLocalSlackFlags(['--verbose'], {})).toEqual({ error: 'unknown option "--verbose"' });
    expect(parseLocalSlackFlags(['--help'], {})).toBe('help');
  });
});

describe('the command', () => {
  it('prints the chat view URL, serves it, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'local-slack', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SLACK_BOT_TOKEN: '', SLACK_SIGNING_SECRET: '' } });
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 20_000);
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString('utf8');
          const match = /chat view:\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
        child.on('exit', () => reject(new Error(`exited early: ${out}`)));
      });
      expect(out).toContain(`Web API:      ${url}/api/`);
      const page = await fetch(`${url}/`);
      expect(await page.text()).toContain('data-testid="command-box"');
      const auth = await fetch(`${url}/api/auth.test`, { method: 'POST', headers: { authorization: 'Bearer xoxb-local-streamdoctor' } });
      expect(await auth.json()).toMatchObject({ ok: true, user_id: 'U0SDBOT001' });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
