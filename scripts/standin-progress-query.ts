/**
 * Runs the bot's progress-table statement against the local Databricks stand-in, over HTTP with the
 * bot's own Databricks client, for rows given on stdin, and prints what the Statement Execution API
 * answered. test/spark feeds it the rows a real listener wrote on real Spark and compares the answer
 * with what Spark SQL returns for the same statement and parameters.
 *
 * stdin:  { "table": "cat.sch.tbl",
 *           "rows": [{ "query_id", "run_id", "query_name", "batch_id", "ingested_us", "progress_json" }],
 *           "requests": [{ "statement": "...", "parameters": [...] }] }
 * stdout: { "results": [{ "columns": [...], "types": ["STRING", "BIGINT", ...], "rows": [[...]] }] }
 *
 * Usage: node bin/run-ts.mjs scripts/standin-progress-query.ts < input.json
 */
import { createDatabricksClient } from '../src/databricks/databricks-client.js';
import type { StatementParameter } from '../src/databricks/wire-types.js';
import { progressPageRequest } from '../src/sources/progress-table-sql.js';
import { startLocalDatabricks } from '../src/standins/databricks/index.js';

interface InputRow {
  query_id: string;
  run_id: string;
  query_name: string | null;
  batch_id: number | null;
  ingested_us: number;
  progress_json: string;
}

interface Input {
  table: string;
  rows: InputRow[];
  requests: { statement: string; parameters: StatementParameter[] }[];
}

async function readStdin(): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of process.stdin) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

const input = JSON.parse(await readStdin()) as Input;
const token = 'dapi-spark-compare-0123456789';
const databricks = await startLocalDatabricks({ tokens: [token], progressTables: [input.table], warehouses: ['0c7d5e2f9a1b3c46'] });
try {
  for (const row of input.rows) {
    if (row.ingested_us % 1_000 !== 0) throw new Error(`ingested_us ${row.ingested_us} is not whole milliseconds: the stand-in stores ms`);
    // The stand-in takes its columns from the progress JSON, as the listener does; check they agree.
    const stored = databricks.insertProgress(row.progress_json, { table: input.table, ingestedAtMs: row.ingested_us / 1_000 });
    const given = [row.query_id, row.run_id, row.query_name, row.batch_id].join('|');
    const extracted = [stored.query_id, stored.run_id, stored.query_name, stored.batch_id].join('|');
    if (given !== extracted) throw new Error(`row columns ${given} differ from its progress JSON (${extracted})`);
  }
  const client = createDatabricksClient({ host: databricks.url, credentials: { kind: 'pat', token } });
  const results = [];
  for (const request of input.requests) {
    // The request body the progress-table source sends, with the statement and parameters given.
    const result = await client.statements.query({ ...progressPageRequest({ warehouseId: '0c7d5e2f9a1b3c46', parameters: request.parameters }), statement: request.statement });
    // The column types, from the statement's result manifest.
    const status = await client.statements.get(result.statementId);
    const types = (status.manifest?.schema?.columns ?? []).map((column) => column.type_text ?? null);
    results.push({ columns: result.columns, types, rows: result.rows });
  }
  process.stdout.write(`${JSON.stringify({ results })}\n`);
} finally {
  await databricks.close();
}
