import { describe, expect, it } from 'vitest';
import { loadWatchConfig } from '../../src/config/index.js';
import { DEMO_CHANNELS } from '../../src/demo/demo-channels.js';
import { DEMO_STREAMS } from '../../src/demo/demo-streams.js';
import { renderDemoWatchConfig } from '../../src/demo/demo-watch-config.js';

describe('the demo watch file', () => {
  const text = renderDemoWatchConfig(DEMO_STREAMS, DEMO_CHANNELS, { host: 'http://127.0.0.1:41999' });

  it('is valid for the real loader, with no warnings', () => {
    const result = loadWatchConfig(text, 'streamdoctor.demo.yml');
    if (!result.ok) throw new Error(result.message);
    expect(result.warnings).toEqual([]);
    const { config } = result;
    expect(config.workspaces).toHaveLength(1);
    expect(config.workspaces[0]).toMatchObject({
      name: 'demo',
      host: 'http://127.0.0.1:41999',
      auth: { kind: 'pat', tokenEnv: 'DATABRICKS_TOKEN' },
      warehouseId: '5c1f0e7a9b3d4e21',
      progressTable: 'main.streamdoctor.streaming_progress',
    });
    expect(config.workspaces[0]!.pipelines.map((p) => p.name)).toEqual(['payments-dlt']);
    expect(config.workspaces[0]!.jobs).toHaveLength(4);
    expect(config.defaultChannel).toBe('#data-alerts');
    expect(config.pollIntervalMs).toBe(1_000);
  });

  it('routes the orders stream to #stream-orders and the others to #data-alerts', () => {
    const result = loadWatchConfig(text, 'streamdoctor.demo.yml');
    if (!result.ok) throw new Error(result.message);
    const byName = new Map(result.config.streams.map((s) => [s.name, s]));
    expect(byName.get('orders_enrichment')).toMatchObject({ channel: '#stream-orders', triggerMs: 20_000, cores: 8, jobId: 912_004_377_120_455 });
    for (const name of ['clickstream_bronze', 'sessions_dedup', 'inventory_by_store', 'payments_silver']) {
      expect(byName.get(name)?.channel).toBe('#data-alerts');
    }
    expect(new Set(result.config.streams.map((s) => s.queryId)).size).toBe(DEMO_STREAMS.length);
  });

  it('refuses a stream routed to a channel the demo workspace lacks', () => {
    const stray = [{ ...DEMO_STREAMS[0]!, channel: 'nowhere' }];
    expect(() => renderDemoWatchConfig(stray, DEMO_CHANNELS, { host: 'http://127.0.0.1:1' })).toThrow(/#nowhere/);
  });
});
