/**
 * Prometheus metrics: Node's default metrics under their stock names, the build info gauge, API
 * errors by service, and the Databricks request-latency histogram fed by the real client against
 * the local Databricks; then the real `web` process's /metrics.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabricksClient } from '../../src/databricks/index.js';
import { apiTemplate, createMetrics, databricksRequestObserver } from '../../src/observability/metrics.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const PAT = 'dapi0123456789abcdef0123456789abcdef';

describe('metrics', () => {
  it("Node's default metrics keep their stock names (no streamdoctor_ prefix)", async () => {
    const text = await createMetrics().registry.metrics();
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).not.toMatch(/^streamdoctor_(process|nodejs)_/m);
    expect(await createMetrics({ processMetrics: false }).registry.metrics()).not.toMatch(/^process_cpu_seconds_total/m);
  });

  it('streamdoctor_build_info{version,node} is 1', async () => {
    const text = await createMetrics({ processMetrics: false }).registry.metrics();
    expect(text).toContain(`streamdoctor_build_info{version="${VERSION}",node="${process.version}"} 1`);
  });

  it('api errors carry the service they came from', async () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.apiErrors.inc({ service: 'slack', kind: 'slack_rate_limited' });
    metrics.apiErrors.inc({ service: 'databricks', kind: 'streamdoctor_databricks_unavailable' });
    metrics.apiErrors.inc({ service: 'engine', kind: 'streamdoctor_engine_error' });
    const text = await metrics.registry.metrics();
    expect(text).toContain('streamdoctor_api_errors_total{service="slack",kind="slack_rate_limited"} 1');
    expect(text).toContain('streamdoctor_api_errors_total{service="databricks",kind="streamdoctor_databricks_unavailable"} 1');
    expect(text).toContain('streamdoctor_api_errors_total{service="engine",kind="streamdoctor_engine_error"} 1');
  });

  it('API paths become bounded templates', () => {
    expect(apiTemplate('/api/2.0/sql/statements')).toBe('/api/2.0/sql/statements');
    expect(apiTemplate('/api/2.0/sql/statements/01ef2f3a-1b2c-1d3e-9f00-aabbccddeeff/result/chunks/3')).toBe('/api/2.0/sql/statements/{id}/result/chunks/{id}');
    expect(apiTemplate('/api/2.0/pipelines/abcdef12-abcd-3456-7890-abcd1234ef56/events?max_results=100')).toBe('/api/2.0/pipelines/{id}/events');
    expect(apiTemplate('/api/2.2/jobs/runs/list')).toBe('/api/2.2/jobs/runs/list');
    expect(apiTemplate('/oidc/v1/token')).toBe('/oidc/v1/token');
  });
});

describe('the Databricks request-latency histogram, fed by the real client', () => {
  let local: LocalDatabricks;
  beforeAll(async () => {
    local = await startLocalDatabricks({ tokens: [PAT] });
  });
  afterAll(async () => {
    await local.close();
  });

  it('observes every attempt by API and status, retries included', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const databricks = createDatabricksClient({
      host: local.url,
      credentials: { kind: 'pat', token: PAT },
      retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, budgetMs: 10_000 },
      onEvent: databricksRequestObserver(metrics),
      sleep: async () => undefined,
    });
    local.faults.inject({ kind: 'rate_limit', times: 1, retryAfterSec: 1 });
    await databricks.statements.query({ statement: 'SELECT 1', warehouse_id: '0c7d5e2f9a1b3c46', wait_timeout: '5s' });
    const histogram = await metrics.registry.getSingleMetric('streamdoctor_databricks_request_duration_seconds')!.get();
    type Sample = (typeof histogram.values)[number] & { metricName?: string };
    const samples = histogram.values as Sample[];
    const counts = samples
      .filter((value) => value.metricName === 'streamdoctor_databricks_request_duration_seconds_count')
      .map((value) => ({ ...value.labels, count: value.value }));
    expect(counts).toEqual(
      expect.arrayContaining([
        { api: '/api/2.0/sql/statements', status: '429', count: 1 },
        { api: '/api/2.0/sql/statements', status: '200', count: 1 },
      ]),
    );
    const sum = samples.find((value) => value.metricName === 'streamdoctor_databricks_request_duration_seconds_sum' && value.labels.status === '200');
    expect(sum!.value).toBeGreaterThan(0);
    expect(sum!.value).toBeLessThan(10);
  });

  it('a metrics registry bound later (a function) gets the requests made after it exists', async () => {
    let bound: ReturnType<typeof createMetrics> | undefined;
    const databricks = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, onEvent: databricksRequestObserver(() => bound) });
    await databricks.statements.query({ statement: 'SELECT 1', warehouse_id: '0c7d5e2f9a1b3c46', wait_timeout: '5s' });
    bound = createMetrics({ processMetrics: false });
    await databricks.statements.query({ statement: 'SELECT 1', warehouse_id: '0c7d5e2f9a1b3c46', wait_timeout: '5s' });
    expect(await bound.registry.metrics()).toContain('streamdoctor_databricks_request_duration_seconds_count{api="/api/2.0/sql/statements",status="200"} 1');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('the web process', () => {
  it('serves the stock Node metrics, the build info and the Databricks histogram on /metrics', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [join(ROOT, 'bin/streamdoctor.mjs'), 'web'], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), REDIS_URL: 'redis://127.0.0.1:6379', STREAMDOCTOR_PREFIX: `sdtest-metrics-${process.pid}`, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      let text = '';
      for (let attempt = 0; attempt < 300 && !text; attempt += 1) {
        try {
          const response = await fetch(`http://127.0.0.1:${port}/metrics`);
          if (response.ok) text = await response.text();
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      expect(text, stderr).toMatch(/^process_cpu_seconds_total \d/m);
      expect(text).toMatch(/^nodejs_version_info\{/m);
      expect(text).toContain(`streamdoctor_build_info{version="${VERSION}",node="${process.version}"} 1`);
      expect(text).toContain('# TYPE streamdoctor_databricks_request_duration_seconds histogram');
      expect(text).toContain('# TYPE streamdoctor_api_errors_total counter');
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});

describe('docs/production.md', () => {
  it('lists every metric StreamDoctor registers, and no other streamdoctor_ metric', async () => {
    const docs = readFileSync(join(ROOT, 'docs/production.md'), 'utf8');
    const registered = createMetrics({ processMetrics: false }).registry.getMetricsAsArray().map((metric) => metric.name);
    expect(registered.length).toBeGreaterThan(10);
    expect(registered.filter((name) => !docs.includes(`\`${name}\``))).toEqual([]);
    const documented = new Set([...docs.matchAll(/`(streamdoctor_[a-z_]+)[`{]/g)].map((match) => match[1]!));
    expect([...documented].filter((name) => !registered.includes(name))).toEqual([]);
  });
});
