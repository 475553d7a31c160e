/**
 * `npm run bench:poll`: one poll cycle of the progress-table source against the local Databricks,
 * for 10, 100 and 1,000 watched queries with 10 new batches each. Prints the HTTP requests (they must
 * not grow with the number of queries: one statement plus its result chunks) and the time taken
 * (target: < 2 s for 1,000 queries × 10 batches).
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createDatabricksClient } from '../src/databricks/index.js';
import { StreamSimulator, type StreamSpec } from '../src/simulator/index.js';
import { ProgressTableSource } from '../src/sources/index.js';
import { startLocalDatabricks } from '../src/standins/databricks/index.js';

const PAT = 'dapi-bench-0123456789abcdef';
const TABLE = 'main.streamdoctor.streaming_progress';
const BATCHES = 10;

function spec(index: number): StreamSpec {
  const stateful = index % 2 === 0;
  return {
    name: `stream_${String(index).padStart(4, '0')}`,
    arrival: 1_000 + (index % 7) * 400,
    processing: { rowsPerSecPerCore: 400, cores: 8 },
    triggerMs: 10_000,
    source: { kind: 'kafka', topic: `topic_${index % 50}`, partitions: 8 },
    ...(stateful ? { state: { operator: 'stateStoreSave' as const, watermarkMs: 600_000 } } : {}),
  };
}

async function cycle(queries: number): Promise<Record<string, number | string>> {
  const startMs = Date.now() - 60 * 60_000;
  const local = await startLocalDatabricks({ tokens: [PAT], startMs, speed: 0, progressTables: [TABLE] });
  try {
    const simulators = Array.from({ length: queries }, (_, index) => new StreamSimulator(spec(index), { startMs, seed: index + 1 }));
    // One earlier batch per query, read by a warm-up poll, so the measured cycle starts from a real cursor.
    for (const simulator of simulators) {
      const batch = simulator.next();
      local.insertProgress(batch.json, { ingestedAtMs: batch.endMs });
    }
    let newestMs = 0;
    let bytes = 0;
    const fresh: { json: string; endMs: number }[] = [];
    for (const simulator of simulators) {
      for (let i = 0; i < BATCHES; i += 1) {
        const batch = simulator.next();
        fresh.push({ json: batch.json, endMs: batch.endMs });
        newestMs = Math.max(newestMs, batch.endMs);
      }
    }
    const client = createDatabricksClient({ host: local.url, credentials: { kind: 'pat', token: PAT } });
    const source = new ProgressTableSource({
      client,
      warehouseId: '0c7d5e2f9a1b3c46',
      table: TABLE,
      watched: { queryIds: simulators.map((simulator) => simulator.id), queryNames: [] },
      now: () => local.clock.now(),
      initialLookbackMs: 2 * 3_600_000,
    });
    local.clock.advance(Math.max(0, newestMs - local.clock.now()) / 2);
    const warm = await source.poll(null);
    // Only now do the ten new batches per query land.
    for (const batch of fresh) {
      local.insertProgress(batch.json, { ingestedAtMs: Math.max(batch.endMs, local.clock.now()) });
      bytes += batch.json.length;
    }
    local.clock.advance(Math.max(0, newestMs - local.clock.now()) + 60_000);
    local.resetRequestCounts();
    const before = client.stats().requests;
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    const result = await source.poll(warm.cursor);
    const elapsed = performance.now() - started;
    const heapAfter = process.memoryUsage().heapUsed;
    const server = local.requests();
    if (result.progress.length !== queries * BATCHES) {
      throw new Error(`expected ${queries * BATCHES} new progress records, got ${result.progress.length} (${result.warnings.slice(0, 3).join('; ')})`);
    }
    return {
      queries,
      'new rows': result.progress.length,
      'progress MB': (bytes / 1_048_576).toFixed(1),
      'HTTP requests': client.stats().requests - before,
      statements: server.byRoute['POST /api/2.0/sql/statements'] ?? 0,
      'chunk GETs': server.byRoute['GET /api/2.0/sql/statements/{id}/result/chunks/{n}'] ?? 0,
      'time ms': Math.round(elapsed),
      'rows/s': Math.round(result.progress.length / (elapsed / 1_000)),
      'cursor bytes': JSON.stringify(result.cursor).length,
      'heap Δ MB': ((heapAfter - heapBefore) / 1_048_576).toFixed(1),
    };
  } finally {
    await local.close();
  }
}

const rows: Record<string, number | string>[] = [];
for (const queries of [10, 100, 1_000]) rows.push(await cycle(queries));
const columns = Object.keys(rows[0]!);
const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => String(row[column]).length)));
const line = (values: string[]) => values.map((value, index) => value.padStart(widths[index]!)).join('  ');
process.stdout.write(
  `bench:poll — one poll cycle of the progress-table source, ${BATCHES} new batches per query, local Databricks on loopback\n` +
    `(the stand-in serves from this same process, so its work counts in "time ms"; ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)})\n\n`,
);
process.stdout.write(`${line(columns)}\n`);
for (const row of rows) process.stdout.write(`${line(columns.map((column) => String(row[column])))}\n`);
const big = rows.at(-1)!;
const ok = Number(big['time ms']) < 2_000 && Number(big.statements) === 1;
process.stdout.write(
  `\n1,000 queries: ${big['HTTP requests']} HTTP requests (${big.statements} statement + ${big['chunk GETs']} chunk GETs), ${big['time ms']} ms — target < 2,000 ms and one statement: ${ok ? 'met' : 'NOT met'}\n`,
);
