/**
 * The progress-table source reads the whole overlap window again only every `lateReadEveryMs`
 * (a 10 s poll used to read every row about 60 times); the polls between read a short
 * window behind the newest row. A row that lands late (visible long after its ingested_at) is still
 * read exactly once, at the next full read.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabricksClient, type DatabricksClient } from '../../src/databricks/index.js';
import { ProgressTableSource, type ProgressTableCursor, type SourcedProgress } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { simulatedBatches } from './simulated-progress.js';

const PAT = 'dapi-local-test-token-000000000001';
const TABLE = 'main.streamdoctor.streaming_progress';
const START = Date.UTC(2026, 8, 14, 10, 0, 0);

let local: LocalDatabricks;
let client: DatabricksClient;
let rowsRead = 0;

beforeEach(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0 });
  client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 }, sleep: async () => undefined });
  const query = client.statements.query.bind(client.statements);
  rowsRead = 0;
  client.statements.query = (async (...args: Parameters<typeof query>) => {
    const result = await query(...args);
    rowsRead += result.rows.length;
    return result;
  }) as typeof query;
});
afterEach(async () => {
  await local.close();
});

const keyOf = (record: SourcedProgress) => `${record.progress.id}/${record.progress.batchId}`;

describe('progress-table source: late rows', () => {
  it('reads the overlap again once a minute, not at every poll, and still reads a late row once', async () => {
    const batches = simulatedBatches('orders_agg', 40, START);
    const src = new ProgressTableSource({ client, warehouseId: '0c7d5e2f9a1b3c46', table: TABLE, watched: { queryIds: [batches[0]!.id], queryNames: [] }, now: () => local.clock.now(), statement: { pollIntervalMs: 10 }, overlapMs: 600_000, initialLookbackMs: 600_000 });
    let cursor: ProgressTableCursor | null = null;
    const read: SourcedProgress[] = [];
    const perPoll: number[] = [];
    for (let i = 0; i < 30; i++) {
      const b = batches[i]!;
      if (i === 20) {
        // Batch 20 is stamped when it ended but its commit becomes visible 3 minutes later.
        local.insertProgress(b.json, { ingestedAtMs: b.endMs, visibleAfterMs: 180_000 });
      } else {
        local.insertProgress(b.json, { ingestedAtMs: b.endMs });
      }
      local.clock.advance(b.endMs + 1_000 - local.clock.now());
      rowsRead = 0;
      const result = await src.poll(cursor);
      perPoll.push(rowsRead);
      read.push(...result.progress);
      cursor = result.cursor;
    }
    // Let the late row surface, then a full read (a minute after the last) finds it.
    for (let t = 0; t < 4; t++) {
      local.clock.advance(60_000);
      const result = await src.poll(cursor);
      read.push(...result.progress);
      cursor = result.cursor;
    }
    const keys = read.map(keyOf);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.sort()).toEqual(batches.slice(0, 30).map((b) => `${b.id}/${b.batchId}`).sort());
    // Between full reads a poll reads the newest rows and a 30 s window, not 10 minutes of rows.
    expect(Math.min(...perPoll.slice(10))).toBeLessThanOrEqual(4);
    expect(perPoll.slice(10).filter((n) => n > 10).length).toBeLessThanOrEqual(4);
  });

  it('lateReadEveryMs 0 reads the whole window at every poll (as before)', async () => {
    const batches = simulatedBatches('orders_agg', 12, START);
    const src = new ProgressTableSource({ client, warehouseId: '0c7d5e2f9a1b3c46', table: TABLE, watched: { queryIds: [batches[0]!.id], queryNames: [] }, now: () => local.clock.now(), statement: { pollIntervalMs: 10 }, lateReadEveryMs: 0 });
    let cursor: ProgressTableCursor | null = null;
    for (const b of batches) {
      local.insertProgress(b.json, { ingestedAtMs: b.endMs });
      local.clock.advance(b.endMs + 1_000 - local.clock.now());
      rowsRead = 0;
      cursor = (await src.poll(cursor)).cursor;
    }
    expect(rowsRead).toBe(12);
  });
});
