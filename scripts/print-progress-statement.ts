/**
 * Prints the progress-table statement exactly as the bot sends it (the text and the named parameters
 * the progress-table source puts in its Statement Execution request), as one JSON object:
 * `{ "statement": "...", "parameters": [{ "name", "value", "type"? }], "columns": [...] }`.
 * Used by test/spark to run the bot's own SQL on real Spark SQL.
 *
 * Usage: node bin/run-ts.mjs scripts/print-progress-statement.ts --table T [--query-ids '["id",...]']
 *        [--query-names '["name",...]'] [--after-us N] [--after-key KEY]
 */
import { PROGRESS_TABLE_COLUMNS, PROGRESS_TABLE_STATEMENT, progressPageParameters } from '../src/sources/progress-table-sql.js';

function flag(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = process.argv[index + 1];
  if (value === undefined) throw new Error(`--${name} needs a value`);
  return value;
}

function stringArray(name: string): string[] {
  const parsed = JSON.parse(flag(name, '[]')) as unknown;
  if (!Array.isArray(parsed) || parsed.some((item) => typeof item !== 'string')) throw new Error(`--${name} must be a JSON array of strings`);
  return parsed as string[];
}

const parameters = progressPageParameters({
  table: flag('table', 'main.streamdoctor.streaming_progress'),
  queryIds: stringArray('query-ids'),
  queryNames: stringArray('query-names'),
  afterUs: Number(flag('after-us', '0')),
  afterKey: flag('after-key', ''),
});
process.stdout.write(`${JSON.stringify({ statement: PROGRESS_TABLE_STATEMENT, parameters, columns: PROGRESS_TABLE_COLUMNS })}\n`);
