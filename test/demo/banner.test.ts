import { describe, expect, it } from 'vitest';
import { renderBanner } from '../../src/demo/banner.js';

const input = {
  chatUrl: 'http://localhost:3000',
  appUrl: 'http://127.0.0.1:41234',
  databricksUrl: 'http://127.0.0.1:41235',
  redis: 'redis://127.0.0.1:6379 (already running)',
  speedup: 30,
  lagChannel: '#stream-orders',
  streams: [
    { name: 'orders_enrichment', story: 'falls behind (15 % overload) after ~20 s', channel: '#stream-orders' },
    { name: 'clickstream_bronze', story: 'healthy', channel: '#data-alerts' },
  ],
};

describe('renderBanner', () => {
  it('fits one screen and says where to look and what to try', () => {
    const text = renderBanner(input);
    const lines = text.split('\n');
    expect(lines.length).toBeLessThanOrEqual(24);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(120);
    expect(text).toContain('Open the chat view:  http://localhost:3000');
    expect(text).toMatch(/orders_enrichment\s+falls behind \(15 % overload\) after ~20 s {2}→ #stream-orders/);
    expect(text).toMatch(/clickstream_bronze\s+healthy/);
    expect(text).toContain('/stream status');
    expect(text).toContain('open #stream-orders: within about a minute a lag alert appears');
    expect(text).toContain('docs/production.md');
    expect(text).not.toContain('\u001b[');
  });

  it('uses colour only when asked (a TTY)', () => {
    expect(renderBanner({ ...input, color: true })).toContain('\u001b[1m');
  });
});
