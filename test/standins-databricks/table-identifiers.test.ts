/**
 * Table names as Databricks SQL reads them, through `IDENTIFIER(:table)` as the bot sends them: an
 * unquoted part is letters, digits and `_` (`dev-catalog` fails with INVALID_IDENTIFIER, SQLSTATE
 * 42602, as the real service answers), a back-quoted part may hold anything, a doubled backquote
 * standing for one. The stand-in answers as strictly; a back-quoted name works end to end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabricksClient, StatementFailedError } from '../../src/databricks/index.js';
import { ProgressTableSource } from '../../src/sources/index.js';
import { startLocalDatabricks, type LocalDatabricks } from '../../src/standins/databricks/index.js';
import { evaluateStatement, normalizeTableName, parseTableName } from '../../src/standins/databricks/progress-statement.js';
import { simulatedBatches } from '../sources/simulated-progress.js';

const PAT = 'dapi-local-test-token-000000000022';
const START = Date.UTC(2026, 8, 14, 10, 0, 0);
const DEV_TABLE = '`dev-catalog`.streamdoctor.streaming_progress';

let local: LocalDatabricks | null = null;
afterEach(async () => {
  await local?.close();
  local = null;
});

function poll(table: string, queryId: string) {
  const client = createDatabricksClient({ host: local!.url, credentials: { kind: 'pat', token: PAT }, retry: { maxAttempts: 1 }, sleep: async () => undefined });
  return new ProgressTableSource({ client, warehouseId: '0c7d5e2f9a1b3c46', table, watched: { queryIds: [queryId], queryNames: [] }, now: () => local!.clock.now(), statement: { pollIntervalMs: 10 } }).poll(null);
}

describe('local Databricks: table identifiers', () => {
  it('refuses an unquoted hyphen with INVALID_IDENTIFIER and reads the back-quoted name end to end', async () => {
    local = await startLocalDatabricks({ tokens: [PAT], startMs: START, speed: 0, progressTables: [DEV_TABLE] });
    const batches = simulatedBatches('orders_agg', 4, START, 5);
    for (const batch of batches) local.insertProgress(batch.json, { ingestedAtMs: batch.endMs });
    local.clock.advance(120_000);

    const refused = (await poll('dev-catalog.streamdoctor.streaming_progress', batches[0]!.id).catch((error: unknown) => error)) as StatementFailedError;
    expect(refused).toBeInstanceOf(StatementFailedError);
    expect(refused.sqlState).toBe('42602');
    expect(refused.message).toContain('[INVALID_IDENTIFIER] The unquoted identifier dev-catalog is invalid and must be back quoted as: `dev-catalog`.');

    for (const table of [DEV_TABLE, '`dev-catalog`.`streamdoctor`.`streaming_progress`', '`Dev-Catalog`.StreamDoctor.streaming_progress']) {
      const result = await poll(table, batches[0]!.id);
      expect(result.progress.map((record) => record.progress.batchId)).toEqual([0, 1, 2, 3]);
    }
  });

  it('registers only names the real service accepts', async () => {
    await expect(startLocalDatabricks({ tokens: [PAT], progressTables: ['dev-catalog.streamdoctor.streaming_progress'] })).rejects.toThrow(/invalid progress table name/);
  });

  it('reads a doubled backquote as one, and refuses other characters unquoted, an open quote and an empty part', () => {
    expect(parseTableName('`a``b`.s.t')).toEqual({ ok: true, parts: ['a`b', 's', 't'] });
    expect(parseTableName('`a.b`.s.t')).toEqual({ ok: true, parts: ['a.b', 's', 't'] });
    expect(normalizeTableName('`Main`.StreamDoctor.T')).toBe('main.streamdoctor.t');
    expect(normalizeTableName('`dev-catalog`.s.t')).toBe('`dev-catalog`.s.t');
    expect(normalizeTableName('dev-catalog.s.t')).toBeNull();
    const failure = (name: string) => {
      const parsed = parseTableName(name);
      return parsed.ok ? null : parsed.failure.message;
    };
    expect(failure('main.stream$.t')).toMatch(/^\[PARSE_SYNTAX_ERROR\] .* SQLSTATE: 42601$/);
    expect(failure('`main.s.t')).toMatch(/^\[PARSE_SYNTAX_ERROR\]/);
    expect(failure('main..t')).toMatch(/^\[PARSE_SYNTAX_ERROR\]/);
    expect(failure('``.s.t')).toMatch(/^\[PARSE_SYNTAX_ERROR\]/);
    expect(failure('main.dev-schema.t')).toMatch(/^\[INVALID_IDENTIFIER\] The unquoted identifier dev-schema is invalid .* SQLSTATE: 42602$/);
  });

  it('reads a literal FROM name by the same rules', () => {
    const tables = new Map();
    const sql = (from: string) => `SELECT query_id, run_id, batch_id, unix_millis(event_time) AS event_ms, unix_micros(ingested_at) AS ingested_us, progress_json FROM ${from}
      WHERE (array_contains(from_json(:query_ids, 'ARRAY<STRING>'), query_id) OR array_contains(from_json(:query_names, 'ARRAY<STRING>'), query_name))
      AND (ingested_at > timestamp_micros(:after_us) OR (ingested_at = timestamp_micros(:after_us) AND concat_ws('/', query_id, run_id, CAST(batch_id AS STRING), CAST(unix_millis(event_time) AS STRING)) > :after_key))
      ORDER BY ingested_at, concat_ws('/', query_id, run_id, CAST(batch_id AS STRING), CAST(unix_millis(event_time) AS STRING))`;
    const params = [
      { name: 'query_ids', value: '[]' },
      { name: 'query_names', value: '[]' },
      { name: 'after_us', value: '0', type: 'BIGINT' },
      { name: 'after_key', value: '' },
    ];
    const hyphen = evaluateStatement(sql('dev-catalog.streamdoctor.streaming_progress'), params, tables, START);
    expect(hyphen.ok ? null : hyphen.failure.message).toContain('[INVALID_IDENTIFIER] The unquoted identifier dev-catalog is invalid');
    const quoted = evaluateStatement(sql('`dev-catalog`.streamdoctor.streaming_progress'), params, tables, START);
    expect(quoted.ok ? null : quoted.failure.message).toContain('[TABLE_OR_VIEW_NOT_FOUND] The table or view `dev-catalog`.`streamdoctor`.`streaming_progress` cannot be found');
  });
});
