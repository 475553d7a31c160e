/**
 * A progress page whose statement submission may have been processed but got no usable answer (a
 * timeout, a 500) is not submitted again inside the poll (that could run the statement twice): the
 * poll fails, its cursor is not saved, and the next poll reads from the saved one, every row once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabricksClient, DatabricksUnavailableError, type DatabricksClient } from '../../src/databricks/index.js';
import { ProgressTableSource, type ProgressTableCursor, type SourcedProgress } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { simulatedBatches } from './simulated-progress.js';

const PAT = 'dapi-local-test-token-000000000001';
const START = Date.UTC(2026, 8, 14, 10, 0, 0);
const SUBMIT = 'POST /api/2.0/sql/statements';

let local: LocalDatabricks;
let client: DatabricksClient;

beforeEach(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0 });
  client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, timeoutMs: 300, retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5 } });
});
afterEach(async () => {
  await local.close();
});

describe('a progress page whose submission got no usable answer', () => {
  it('fails the poll with one statement sent; the next poll reads from the saved cursor, every row once', async () => {
    const batches = simulatedBatches('orders_agg', 10, START);
    for (const batch of batches.slice(0, 6)) local.insertProgress(batch.json, { ingestedAtMs: batch.endMs });
    local.clock.advance(60_000);
    const src = new ProgressTableSource({
      client,
      warehouseId: '0c7d5e2f9a1b3c46',
      table: 'main.streamdoctor.streaming_progress',
      watched: { queryIds: [batches[0]!.id], queryNames: [] },
      now: () => local.clock.now(),
      statement: { pollIntervalMs: 5 },
    });
    const read: SourcedProgress[] = [];
    let cursor: ProgressTableCursor | null = null;
    /** Polls until the source has nothing more, as the worker does, saving each cursor. */
    const drain = async () => {
      for (let more = true; more; ) {
        const result = await src.poll(cursor);
        read.push(...result.progress);
        cursor = JSON.parse(JSON.stringify(result.cursor)) as ProgressTableCursor;
        more = result.more;
      }
    };
    await drain();
    expect(read.map((record) => record.progress.batchId)).toEqual([0, 1, 2, 3, 4, 5]);

    for (const batch of batches.slice(6)) local.insertProgress(batch.json, { ingestedAtMs: batch.endMs });
    local.clock.advance(60_000);
    const saved = cursor;
    for (const fault of [{ kind: 'slow', delayMs: 700 }, { kind: 'server_error' }] as const) {
      local.resetRequestCounts();
      local.faults.inject({ ...fault, pathPrefix: '/api/2.0/sql/statements', method: 'POST' });
      await expect(src.poll(saved)).rejects.toBeInstanceOf(DatabricksUnavailableError);
      // A slow answer reaches the route once its delay is over.
      await new Promise((resolve) => setTimeout(resolve, fault.kind === 'slow' ? 900 : 0));
      expect(local.requests().byRoute[SUBMIT] ?? 0, fault.kind).toBe(fault.kind === 'slow' ? 1 : 0);
      expect(local.faults.pending()).toEqual([]);
    }
    // A failed poll returns no cursor: the worker polls again with the one it saved.
    await drain();
    expect(read.map((record) => record.progress.batchId)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
