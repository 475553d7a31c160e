/**
 * `ingested_at` is each writer cluster's own `current_timestamp()`. One cluster whose clock runs
 * fast must not hide the other clusters' rows: the watermark (and with it every read's lower bound)
 * never passes the bot's own clock, the fast rows are still read (each once) and the skew is logged
 * once per query. The stand-in shows a row when its write commits, whatever its `ingested_at` says.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabricksClient, type DatabricksClient } from '../../src/databricks/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { ProgressTableSource, type ProgressTableCursor, type SourcedProgress } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { simulatedBatches } from './simulated-progress.js';

const PAT = 'dapi-local-test-token-000000000021';
const TABLE = 'main.streamdoctor.streaming_progress';
const START = Date.UTC(2026, 8, 14, 10, 0, 0);
const FAST_BY_MS = 15 * 60_000;

let local: LocalDatabricks;
let client: DatabricksClient;
let lines: { level: string; msg: string; queryIds?: string[]; skewMs?: number }[];

beforeEach(async () => {
  local = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0 });
  client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT }, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 }, sleep: async () => undefined });
  lines = [];
});
afterEach(async () => {
  await local.close();
});

function source(queryIds: string[]) {
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return new ProgressTableSource({
    client,
    warehouseId: '0c7d5e2f9a1b3c46',
    table: TABLE,
    watched: { queryIds, queryNames: [] },
    now: () => local.clock.now(),
    statement: { pollIntervalMs: 10 },
    logger: createLogger({ name: 'test', level: 'debug', destination }),
  });
}

const keyOf = (record: SourcedProgress) => `${record.progress.id}/${record.progress.batchId}`;

describe('progress-table source: a writer cluster with a fast clock', () => {
  it("reads every stream's rows, the fast cluster's as soon as they commit, each once, and logs the skew once", async () => {
    const fast = simulatedBatches('cluster_a_fast_clock', 40, START, 1);
    const good = simulatedBatches('cluster_b_good_clock', 40, START, 2);
    const src = source([fast[0]!.id, good[0]!.id]);
    let cursor: ProgressTableCursor | null = null;
    const read: SourcedProgress[] = [];
    const written: string[] = [];
    let readLate = 0;
    let nextFast = 0;
    let nextGood = 0;
    // Every 10 s both clusters append the batches that ended; cluster A stamps them 15 min ahead.
    for (let step = 0; step < 60; step += 1) {
      const committed = new Set<string>();
      for (; nextFast < fast.length && fast[nextFast]!.endMs <= local.clock.now(); nextFast += 1) {
        const batch = fast[nextFast]!;
        local.insertProgress(batch.json, { ingestedAtMs: batch.endMs + FAST_BY_MS });
        committed.add(`${batch.id}/${batch.batchId}`);
      }
      for (; nextGood < good.length && good[nextGood]!.endMs <= local.clock.now(); nextGood += 1) {
        const batch = good[nextGood]!;
        local.insertProgress(batch.json, { ingestedAtMs: batch.endMs });
        committed.add(`${batch.id}/${batch.batchId}`);
      }
      written.push(...committed);
      const got = new Set<string>();
      for (let page = 0; page < 3; page += 1) {
        const result = await src.poll(cursor);
        cursor = result.cursor;
        for (const record of result.progress) got.add(keyOf(record));
        read.push(...result.progress);
        if (!result.more) break;
      }
      readLate += [...committed].filter((key) => !got.has(key)).length;
      // The watermark never passes the bot's clock, however far ahead a row is stamped.
      expect(cursor!.watermarkUs).toBeLessThanOrEqual(local.clock.now() * 1_000);
      local.clock.advance(10_000);
    }
    // Past the skew the fast rows leave the re-read window; nothing is read twice on the way.
    for (let step = 0; step < 25; step += 1) {
      local.clock.advance(60_000);
      const result = await src.poll(cursor);
      cursor = result.cursor;
      read.push(...result.progress);
    }

    const keys = read.map(keyOf);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.sort()).toEqual(written.sort());
    expect(written.filter((key) => key.startsWith(fast[0]!.id)).length).toBeGreaterThan(25);
    expect(written.filter((key) => key.startsWith(good[0]!.id)).length).toBeGreaterThan(25);
    // Every row was read at the first poll after its commit (real Delta shows it at once).
    expect(readLate).toBe(0);

    const skew = lines.filter((line) => line.level === 'warn' && /clock skew/.test(line.msg));
    expect(skew).toHaveLength(1);
    expect(skew[0]!.queryIds).toEqual([fast[0]!.id]);
    expect(skew[0]!.msg).toContain(fast[0]!.id);
    // Measured against the read, which comes up to a poll after the write: at least 14m 50s of the 15.
    expect(skew[0]!.skewMs).toBeGreaterThan(FAST_BY_MS - 10_001);
    expect(skew[0]!.skewMs).toBeLessThanOrEqual(FAST_BY_MS);
    expect(skew[0]!.msg).toMatch(/stamped 14m 5\ds ahead/);
    expect(skew[0]!.msg).not.toContain(good[0]!.id);
  });

  it('lowers a stored watermark that is ahead of the clock, so the other streams are read at once', async () => {
    const good = simulatedBatches('cluster_b_good_clock', 6, START, 2);
    for (const batch of good) local.insertProgress(batch.json, { ingestedAtMs: batch.endMs });
    local.clock.advance(120_000);
    // A cursor saved while a fast cluster's rows carried the watermark 15 minutes ahead: reads from
    // there missed every row of the others. Its next full read (due now) reaches back from our clock.
    let cursor: ProgressTableCursor = { v: 1, watermarkUs: (local.clock.now() + FAST_BY_MS) * 1_000, resume: null, seen: {}, lateReadAtMs: local.clock.now() - 60_000 };
    const src = source([good[0]!.id]);
    const read: number[] = [];
    for (let poll = 0; poll < 3; poll += 1) {
      const result = await src.poll(cursor);
      cursor = result.cursor;
      read.push(...result.progress.map((record) => record.progress.batchId!));
      if (!result.more) break;
    }
    expect(read.sort((a, b) => a - b)).toEqual(good.map((batch) => batch.batchId));
    expect(cursor.watermarkUs).toBeLessThanOrEqual(local.clock.now() * 1_000);
  });
});

describe('local Databricks: when a progress row becomes visible', () => {
  it('shows a row when its write commits, even stamped 15 minutes ahead, and delays only a slow commit', async () => {
    const [first, second] = simulatedBatches('orders_agg', 2, START, 3);
    local.clock.advance(first!.endMs - START);
    const stamped = local.insertProgress(first!.json, { ingestedAtMs: first!.endMs + FAST_BY_MS });
    // A slow commit: readers see it 45 s after the write, whatever its stamp.
    const slow = local.insertProgress(second!.json, { ingestedAtMs: second!.endMs - 60_000, visibleAfterMs: 45_000 });
    expect(stamped.visible_at_ms).toBe(local.clock.now());
    expect(slow.visible_at_ms).toBe(local.clock.now() + 45_000);
    const read = async () => (await source([first!.id]).poll({ v: 1, watermarkUs: (START - 600_000) * 1_000, resume: null, seen: {} })).progress.map((record) => record.progress.batchId);
    expect(await read()).toEqual([0]);
    local.clock.advance(45_000);
    expect((await read()).sort()).toEqual([0, 1]);
  });
});
