import { createServer, type Server } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadWatchConfig, readEnvConfig } from '../../src/config/index.js';
import { startDemoEnvironment, type DemoEnvironment } from '../../src/demo/demo-environment.js';
import { DEMO_SPEED } from '../../src/demo/demo-streams.js';

let env: DemoEnvironment | undefined;
let blocker: Server | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
  if (blocker) await new Promise((resolve) => blocker!.close(resolve));
  blocker = undefined;
});

describe('startDemoEnvironment', () => {
  it('points the bot at the stand-ins through the same variables production uses', async () => {
    env = await startDemoEnvironment({ chatPort: 0 });
    const config = readEnvConfig(env.env);
    expect(config.problems).toEqual([]);
    expect(config.databricks.host).toBe(env.databricks.url);
    expect(config.databricks.auth?.kind).toBe('pat');
    expect(config.slack.apiUrl).toBe(`${env.slack.url}/api/`);
    expect(config.slack.botToken).toMatch(/^xoxb-/);
    const watch = loadWatchConfig(readFileSync(env.configPath, 'utf8'), env.configPath);
    expect(watch.ok).toBe(true);
    expect(env.chatUrl).toMatch(/^http:\/\/localhost:\d+$/);
  });

  it('runs the demo streams on an accelerated clock and writes their progress as the listener would', async () => {
    const startMs = Date.now();
    env = await startDemoEnvironment({ chatPort: 0, startMs });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // 1.5 s of wall clock is 45 s of stream time: every stream has finished a batch or two.
    expect(env.now() - startMs).toBeGreaterThanOrEqual(1_400 * DEMO_SPEED);
    env.databricks.tick();
    const stats = (await (await fetch(`${env.databricks.url}/__admin/stats`)).json()) as { streams: { key: string; written: number }[] };
    expect(stats.streams.map((s) => s.key).sort()).toEqual(['clickstream', 'inventory', 'orders', 'payments', 'sessions']);
    for (const stream of stats.streams) expect(stream.written, stream.key).toBeGreaterThan(0);
  });

  it('moves the chat view to a free port when the preferred one is taken, and cleans up on close', async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as { port: number }).port;
    env = await startDemoEnvironment({ chatPort: taken });
    expect(env.chatUrl).not.toContain(`:${taken}`);
    const { configPath, slack } = env;
    await env.close();
    env = undefined;
    expect(existsSync(configPath)).toBe(false);
    await expect(fetch(`${slack.url}/healthz`)).rejects.toThrow();
  });
});
