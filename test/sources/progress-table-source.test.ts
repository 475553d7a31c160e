import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabricksClient, RateLimitedError, StatementFailedError, type DatabricksClient } from '../../src/databricks/index.js';
import { ProgressTableSource, type ProgressTableCursor, type SourcedProgress } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { simulatedBatches, simulator } from './simulated-progress.js';

const PAT = 'dapi-local-test-token-000000000001';
const TABLE = 'main.streamdoctor.streaming_progress';
const START = Date.UTC(2026, 8, 14, 10, 0, 0);

let local: LocalDatabricks;
let client: DatabricksClient;

beforeEach(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0, statements: { chunkRows: 40 } });
  client = createDatabricksClient({
    host: local.url,
    credentials: { kind: 'pat', token: PAT },
    retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5 },
    sleep: async () => undefined,
  });
});
afterEach(async () => {
  await local.close();
});

function source(queryIds: string[], extra: Partial<ConstructorParameters<typeof ProgressTableSource>[0]> = {}) {
  return new ProgressTableSource({
    client,
    warehouseId: '0c7d5e2f9a1b3c46',
    table: TABLE,
    watched: { queryIds, queryNames: [] },
    now: () => local.clock.now(),
    statement: { pollIntervalMs: 10 },
    ...extra,
  });
}

const keyOf = (record: SourcedProgress) => `${record.progress.id}/${record.progress.runId}/${record.progress.batchId}/${record.progress.timestampMs}`;

describe('ProgressTableSource', () => {
  it('reads the new progress of every watched query in one statement, as parsed Progress, and nothing twice', async () => {
    const queries = ['orders_agg', 'payments_agg', 'clicks_agg'].map((name, index) => simulatedBatches(name, 12, START, index + 1));
    for (const batches of queries) for (const batch of batches) local.insertProgress(batch.json, { ingestedAtMs: batch.endMs });
    // A query nobody watches is not read.
    for (const batch of simulatedBatches('unwatched', 5, START, 9)) local.insertProgress(batch.json, { ingestedAtMs: batch.endMs });
    local.clock.advance(10 * 60_000);

    const ids = queries.map((batches) => batches[0]!.id);
    const src = source(ids);
    local.resetRequestCounts();
    const first = await src.poll(null);
    expect(local.requests().byRoute['POST /api/2.0/sql/statements']).toBe(1);
    expect(first.progress).toHaveLength(36);
    expect(first.warnings).toEqual([]);
    expect(new Set(first.progress.map((record) => record.progress.id))).toEqual(new Set(ids));
    const orders = first.progress.filter((record) => record.progress.name === 'orders_agg');
    expect(orders.map((record) => record.progress.batchId)).toEqual(queries[0]!.map((batch) => batch.batchId));
    expect(orders[0]!.progress.sources[0]!.kind).toBe('kafka');
    expect(orders[0]!.origin.ref).toContain('query_id=');

    const second = await src.poll(first.cursor);
    expect(second.progress).toEqual([]);
    expect(JSON.stringify(second.cursor).length).toBeLessThan(2_000);
  });

  it('reads watched streams configured by query name', async () => {
    for (const batch of simulatedBatches('orders_agg', 4, START)) local.insertProgress(batch.json, { ingestedAtMs: batch.endMs });
    local.clock.advance(60_000);
    const result = await source([], { watched: { queryIds: [], queryNames: ['orders_agg'] } }).poll(null);
    expect(result.progress.map((record) => record.progress.batchId)).toEqual([0, 1, 2, 3]);
  });

  it('neither misses nor double-reads rows that land late and out of order', async () => {
    // Three streams write through the stand-in's listener; 30 % of rows become visible 45 s late.
    const names = ['orders_agg', 'payments_agg', 'clicks_agg'];
    const ids: string[] = [];
    names.forEach((name, index) => {
      const sim = simulator(name, START, index + 11);
      ids.push(sim.id);
      local.addStream(name, { generator: sim, table: TABLE, lateFraction: 0.3, lateByMs: 45_000 });
    });
    const src = source(ids, { overlapMs: 120_000, initialLookbackMs: 60_000 });
    let cursor: ProgressTableCursor | null = null;
    const read: SourcedProgress[] = [];
    let lateSeen = 0;
    // Poll every 20 s of simulated time for 15 minutes.
    for (let step = 0; step < 45; step += 1) {
      local.clock.advance(20_000);
      local.tick();
      const result = await src.poll(cursor);
      for (const record of result.progress) {
        const previous = read.at(-1);
        if (previous && record.progress.timestampMs < previous.progress.timestampMs - 20_000) lateSeen += 1;
      }
      read.push(...result.progress);
      cursor = result.cursor;
    }
    // Let the last late rows surface.
    local.clock.advance(60_000);
    const tail = await src.poll(cursor);
    read.push(...tail.progress);

    const keys = read.map(keyOf);
    expect(new Set(keys).size).toBe(keys.length);
    const written = local.requests(); // stand-in still up
    expect(written.total).toBeGreaterThan(0);
    const stored = await expectedRows(ids);
    expect(keys.sort()).toEqual(stored.sort());
    expect(lateSeen).toBeGreaterThan(0);
    expect(JSON.stringify(tail.cursor).length).toBeLessThan(4_000);
  });

  it('pages by keyset when a poll hits row_limit, even when many rows share one ingested_at', async () => {
    const batches = simulatedBatches('orders_agg', 30, START);
    // One Delta commit stamps every row of a buffered write with the same ingested_at.
    const sameStamp = START + 300_000;
    for (const batch of batches) local.insertProgress(batch.json, { ingestedAtMs: sameStamp });
    local.clock.advance(400_000);
    const src = source([batches[0]!.id], { pageRows: 7, maxPagesPerPoll: 2 });
    const got: SourcedProgress[] = [];
    let cursor: ProgressTableCursor | null = null;
    let polls = 0;
    let more = true;
    while (more && polls < 10) {
      const result = await src.poll(cursor);
      got.push(...result.progress);
      cursor = result.cursor;
      more = result.more;
      polls += 1;
    }
    expect(polls).toBe(3);
    expect(got.map((record) => record.progress.batchId).sort((a, b) => a! - b!)).toEqual(batches.map((batch) => batch.batchId));
  });

  it('keeps its cursor when a poll fails, so the next poll loses nothing', async () => {
    const batches = simulatedBatches('orders_agg', 6, START);
    for (const batch of batches) local.insertProgress(batch.json, { ingestedAtMs: batch.endMs });
    local.clock.advance(120_000);
    const src = source([batches[0]!.id]);
    local.faults.inject({ kind: 'rate_limit', times: 10, retryAfterSec: 1 });
    await expect(src.poll(null)).rejects.toBeInstanceOf(RateLimitedError);
    local.faults.clear();
    // An unreadable answer to the submission fails the poll (sent again, the statement could run twice).
    local.faults.inject({ kind: 'malformed', method: 'POST' });
    await expect(src.poll(null)).rejects.toMatchObject({ errorCode: 'MALFORMED_RESPONSE' });
    expect(client.stats().retries.malformed).toBeUndefined();
    const result = await src.poll(null);
    expect(result.progress.map((record) => record.progress.batchId)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('reports a missing table as a StatementFailedError with SQLSTATE 42P01', async () => {
    const error = (await source(['x'], { table: 'main.streamdoctor.no_such_table' })
      .poll(null)
      .catch((caught: unknown) => caught)) as StatementFailedError;
    expect(error).toBeInstanceOf(StatementFailedError);
    expect(error.sqlState).toBe('42P01');
    expect(error.message).toContain('TABLE_OR_VIEW_NOT_FOUND');
  });

  it('reports unusable rows with their location and still returns the good ones', async () => {
    const [good] = simulatedBatches('orders_agg', 1, START);
    local.insertProgress(good!.json, { ingestedAtMs: good!.endMs });
    // A writer that cut the JSON short, and one that wrote a listener event of the wrong kind.
    local.insertProgress(good!.json.slice(0, 300), {
      ingestedAtMs: good!.endMs + 1,
      columns: { query_id: good!.id, run_id: 'r-2', query_name: 'orders_agg', batch_id: 1 },
    });
    local.insertProgress(JSON.stringify({ id: good!.id, runId: 'r-3', exception: null }), {
      ingestedAtMs: good!.endMs + 2,
      columns: { query_id: good!.id, run_id: 'r-3', batch_id: 2 },
    });
    local.clock.advance(60_000);
    const result = await source([good!.id]).poll(null);
    expect(result.progress).toHaveLength(1);
    expect(result.warnings).toHaveLength(2);
    expect(result.warnings[0]).toContain('run_id=r-2 batch_id=1: progress_json is not valid JSON');
    expect(result.warnings[1]).toContain('run_id=r-3');
  });

  it('starts over with a warning when the stored cursor is corrupt', async () => {
    const result = await source(['x']).poll({ v: 1, watermarkUs: 'yesterday' } as unknown as ProgressTableCursor);
    expect(result.warnings[0]).toContain('not valid');
    expect(result.cursor.v).toBe(1);
  });
});

/** Every row the stand-in holds for these queries, as read keys. */
async function expectedRows(ids: string[]): Promise<string[]> {
  const all = await source(ids, { initialLookbackMs: 10 * 3_600_000 }).poll(null);
  return all.progress.map(keyOf);
}
