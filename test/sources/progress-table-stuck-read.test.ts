/**
 * Reads of the progress table that cannot move on. A page Databricks truncates to no row (its next
 * row is larger than the page byte limit) used to read as "caught up": that row and every row after
 * it went unread in silence. Now the poll fails with an error naming the position and the limit, which
 * the source's health reports (the existing path: a poll that throws). Rows skipped as malformed move
 * the keyset position when they have a place in the order; a truncated page of rows that have none
 * fails the same way instead of being asked for again and again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyReadFailure } from '../../jobs/source-health.js';
import { createDatabricksClient, DatabricksClient, type DatabricksClient as Client } from '../../src/databricks/index.js';
import type { DatabricksHttpClient, RequestSpec } from '../../src/databricks/http-client.js';
import type { ExecuteStatementRequest } from '../../src/databricks/wire-types.js';
import { ProgressTableSource, type ProgressTableCursor } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { StreamDoctorError } from '../../src/util/errors.js';
import { simulatedBatches } from './simulated-progress.js';

const PAT = 'dapi-local-test-token-000000000001';
const TABLE = 'main.streamdoctor.streaming_progress';
const START = Date.UTC(2026, 8, 14, 10, 0, 0);
const PAGE_BYTES = 10_000;

/** ISO time with microseconds, as the error names a position. */
const stampOf = (us: number) => new Date(Math.floor(us / 1_000)).toISOString().replace('Z', `${String(us % 1_000).padStart(3, '0')}Z`);

describe('a progress row larger than the page byte limit', () => {
  let local: LocalDatabricks;
  let client: Client;
  beforeEach(async () => {
    local = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0 });
    client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { maxAttempts: 2, baseDelayMs: 1 }, sleep: async () => undefined });
  });
  afterEach(async () => {
    await local.close();
  });

  const batches = simulatedBatches('orders_agg', 8, START);
  /** Writes the batches, the one at `bigAt` padded past the page byte limit. */
  function insert(bigAt: number): void {
    batches.forEach((batch, index) => {
      const json = index === bigAt ? JSON.stringify({ ...JSON.parse(batch.json), observedMetrics: { pad: { blob: 'x'.repeat(20_000) } } }) : batch.json;
      local.insertProgress(json, { ingestedAtMs: batch.endMs });
    });
    local.clock.advance(5 * 60_000);
  }
  const source = (extra: Partial<ConstructorParameters<typeof ProgressTableSource>[0]> = {}) =>
    new ProgressTableSource({ client, warehouseId: '0c7d5e2f9a1b3c46', table: TABLE, watched: { queryIds: [batches[0]!.id], queryNames: [] }, now: () => local.clock.now(), pageBytes: PAGE_BYTES, statement: { pollIntervalMs: 5 }, ...extra });

  it('as the first row read: every poll fails naming the position and the limit, never "caught up"', async () => {
    insert(0);
    const src = source();
    for (let poll = 0; poll < 3; poll += 1) {
      const error = await src.poll(null).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StreamDoctorError);
      expect(error).toMatchObject({ code: 'streamdoctor_progress_read_stuck' });
      const message = (error as Error).message;
      expect(message).toContain(`larger than the page byte limit (${PAGE_BYTES} bytes)`);
      // The first poll reads from its lookback, so the position is a time with no row key yet.
      expect(message).toMatch(/stops the read after ingested_at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z;/);
      expect(message).toContain(`trim or delete that row in ${TABLE}`);
      // What the source's health says in Slack: the limit and the position survive its length bound.
      const failure = classifyReadFailure(error);
      expect(failure.reason).toContain(`page byte limit (${PAGE_BYTES} bytes)`);
      expect(failure.reason).toContain('stops the read after ingested_at');
    }
  });

  it('after rows that fit: those are returned, the read stops at the big row, and the next poll fails naming the row before it', async () => {
    insert(4);
    const src = source({ pageRows: 2 });
    const first = await src.poll(null);
    expect(first.progress.map((record) => record.progress.batchId)).toEqual([0, 1, 2, 3]);
    expect(first.more).toBe(true);
    const lastGood = batches[3]!;
    expect(first.cursor.resume).toEqual({ afterUs: lastGood.endMs * 1_000, afterKey: expect.stringContaining(`/${lastGood.batchId}/`) });
    const cursor = JSON.parse(JSON.stringify(first.cursor)) as ProgressTableCursor;
    for (let poll = 0; poll < 2; poll += 1) {
      const error = await src.poll(cursor).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'streamdoctor_progress_read_stuck' });
      expect((error as Error).message).toContain(`after ingested_at ${stampOf(lastGood.endMs * 1_000)} and row key ${first.cursor.resume!.afterKey};`);
    }
  });
});

describe('rows skipped as malformed on a truncated page', () => {
  const COLUMNS = ['query_id', 'run_id', 'batch_id', 'event_ms', 'ingested_us', 'progress_json'];
  const NOW = Date.UTC(2026, 8, 14, 12, 0, 0);
  const batches = simulatedBatches('orders_agg', 3, NOW - 120_000);
  const rowOf = (batch: (typeof batches)[number], overrides: Record<number, unknown> = {}) => {
    const row: unknown[] = [batch.id, 'run-1', String(batch.batchId), String(batch.endMs), String(batch.endMs * 1_000), batch.json];
    for (const [index, value] of Object.entries(overrides)) row[Number(index)] = value;
    return row;
  };
  const param = (spec: RequestSpec, name: string) => ((spec.body as ExecuteStatementRequest).parameters ?? []).find((p) => p.name === name)?.value;

  /** A client whose statement submissions are answered by `page(after_us, after_key)`. */
  function clientPaging(page: (afterUs: string, afterKey: string) => { rows: unknown[]; truncated: boolean }) {
    const submits: RequestSpec[] = [];
    const http = {
      request: async (spec: RequestSpec) => {
        if (spec.method !== 'POST' || spec.path !== '/api/2.0/sql/statements') return {};
        submits.push(spec);
        const { rows, truncated } = page(String(param(spec, 'after_us')), String(param(spec, 'after_key')));
        return {
          statement_id: `s${submits.length}`,
          status: { state: 'SUCCEEDED' },
          manifest: { total_chunk_count: 1, total_row_count: rows.length, truncated, schema: { columns: COLUMNS.map((name, position) => ({ name, position })) } },
          result: { data_array: rows },
        };
      },
    } as unknown as DatabricksHttpClient;
    return { client: new DatabricksClient(http), submits };
  }
  const source = (client: DatabricksClient) => new ProgressTableSource({ client, warehouseId: 'w', table: 'main.sd.progress', watched: { queryIds: [batches[0]!.id], queryNames: [] }, now: () => NOW });

  it('a page made only of rows with a batch_id that is no number moves the position past them; the next page is read', async () => {
    const bad = rowOf(batches[1]!, { 2: 'abc' });
    const badUs = String(batches[1]!.endMs * 1_000);
    const { client, submits } = clientPaging((afterUs) => (afterUs === badUs ? { rows: [rowOf(batches[2]!)], truncated: false } : { rows: [bad], truncated: true }));
    const result = await source(client).poll(null);
    expect(submits).toHaveLength(2);
    expect([param(submits[1]!, 'after_us'), param(submits[1]!, 'after_key')]).toEqual([badUs, `${batches[1]!.id}/run-1/abc/${batches[1]!.endMs}`]);
    expect(result.progress.map((record) => record.progress.batchId)).toEqual([batches[2]!.batchId]);
    expect(result.warnings).toEqual([expect.stringContaining('batch_id that is not a whole number')]);
    // Read to the end (the poll's `more` is the full re-read it defers, not a continuation).
    expect(result.cursor.resume).toBeNull();
  });

  it.each([
    ['rows that are no list of columns', [null, 7]],
    ['rows with no ingested_at', [rowOf(batches[1]!, { 4: null }), rowOf(batches[2]!, { 4: '' })]],
  ])('a truncated page made only of %s fails the poll at once instead of asking for the same page again', async (_what, rows) => {
    const { client, submits } = clientPaging(() => ({ rows, truncated: true }));
    const error = await source(client).poll(null).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'streamdoctor_progress_read_stuck' });
    expect((error as Error).message).toContain('a truncated page of 2 row(s), none with an ingested_at, stops the read after ingested_at');
    expect(submits).toHaveLength(1);
  });
});
