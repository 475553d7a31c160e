/**
 * Evaluates the statements the product sends to the progress table. The statement text is tokenized
 * and must match one of the known shapes exactly (comments and whitespace aside); its parameter
 * markers must all be bound; the table must exist. Anything else fails the way Databricks fails:
 * HTTP 200, state FAILED, an error class and a SQLSTATE.
 */
import type { ProgressRow, ProgressTable } from './progress-table.js';
import { sqlFailure, tableNotFound, type SqlFailure } from './sql-errors.js';
import { sameTokens, SqlSyntaxError, tokenize, type SqlToken } from './sql-tokens.js';

export interface StatementParam {
  name: string;
  value?: string | null;
  type?: string;
}

export interface ResultColumn {
  name: string;
  type_name: string;
  type_text: string;
}

export type Evaluation = { ok: true; columns: ResultColumn[]; rows: (string | null)[][] } | { ok: false; failure: SqlFailure };

// The stand-in keeps its own copy of the shape: a product change that alters the SQL shows up as a
// failing test instead of a silently agreeing fake.
const PROGRESS_PAGE_SQL = `
SELECT query_id, run_id, batch_id, unix_millis(event_time) AS event_ms, unix_micros(ingested_at) AS ingested_us, progress_json
FROM IDENTIFIER(:table)
WHERE (array_contains(from_json(:query_ids, 'ARRAY<STRING>'), query_id)
    OR array_contains(from_json(:query_names, 'ARRAY<STRING>'), query_name))
  AND (ingested_at > timestamp_micros(:after_us)
    OR (ingested_at = timestamp_micros(:after_us) AND concat_ws('/', query_id, run_id, CAST(batch_id AS STRING), CAST(unix_millis(event_time) AS STRING)) > :after_key))
ORDER BY ingested_at, concat_ws('/', query_id, run_id, CAST(batch_id AS STRING), CAST(unix_millis(event_time) AS STRING))`;

const PROGRESS_PAGE_TOKENS = tokenize(PROGRESS_PAGE_SQL);
const SELECT_ONE = tokenize('SELECT 1');

const PROGRESS_COLUMNS: ResultColumn[] = [
  { name: 'query_id', type_name: 'STRING', type_text: 'STRING' },
  { name: 'run_id', type_name: 'STRING', type_text: 'STRING' },
  { name: 'batch_id', type_name: 'LONG', type_text: 'BIGINT' },
  { name: 'event_ms', type_name: 'LONG', type_text: 'BIGINT' },
  { name: 'ingested_us', type_name: 'LONG', type_text: 'BIGINT' },
  { name: 'progress_json', type_name: 'STRING', type_text: 'STRING' },
];

const UNQUOTED_PART = /^[A-Za-z0-9_]+$/;

/**
 * The parts of a possibly qualified, possibly back-quoted name as Databricks SQL reads it (and
 * `IDENTIFIER(<string>)` parses its string the same way): a part is letters, digits and `_`, or
 * anything between backquotes with a doubled backquote for one. `dev-catalog.s.t` is refused, with the
 * error class the real service gives: the parser reads `dev-catalog` as a hyphen between two words.
 */
export function parseTableName(text: string): { ok: true; parts: string[] } | { ok: false; failure: SqlFailure } {
  const parts: string[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i += 1;
  };
  const syntaxError = () => ({ ok: false as const, failure: sqlFailure('PARSE_SYNTAX_ERROR', '42601', `Syntax error at or near '${text.slice(i, i + 20) || 'end of input'}'.`) });
  for (;;) {
    skipSpace();
    if (text[i] === '`') {
      let part = '';
      let j = i + 1;
      for (;;) {
        if (j >= text.length) return syntaxError();
        if (text[j] === '`') {
          if (text[j + 1] !== '`') break;
          j += 1;
        }
        part += text[j];
        j += 1;
      }
      if (part === '') return syntaxError();
      parts.push(part);
      i = j + 1;
    } else {
      const word = /^[^.\s`]*/.exec(text.slice(i))![0];
      if (!UNQUOTED_PART.test(word)) {
        if (/^[A-Za-z0-9_]+(-[A-Za-z0-9_]+)+$/.test(word)) {
          return {
            ok: false,
            failure: sqlFailure(
              'INVALID_IDENTIFIER',
              '42602',
              `The unquoted identifier ${word} is invalid and must be back quoted as: \`${word}\`. Unquoted identifiers can only contain ASCII letters ('a' - 'z', 'A' - 'Z'), digits ('0' - '9'), and underbar ('_'). Unquoted identifiers must also not start with a digit. Different data sources and meta stores may impose additional restrictions on valid identifiers.`,
            ),
          };
        }
        return syntaxError();
      }
      parts.push(word);
      i += word.length;
    }
    skipSpace();
    if (i >= text.length) break;
    if (text[i] !== '.') return syntaxError();
    i += 1;
  }
  return { ok: true, parts };
}

/**
 * The table's key in the stand-in: its parts lower-cased (Unity Catalog names are case-insensitive),
 * back-quoted where they need it, so `` `main`.Streamdoctor.t `` and `main.streamdoctor.t` are one
 * table; null when it is not a name of at most three parts.
 */
export function normalizeTableName(text: string): string | null {
  const parsed = parseTableName(text);
  if (!parsed.ok || parsed.parts.length > 3) return null;
  return parsed.parts.map((part) => (UNQUOTED_PART.test(part) ? part.toLowerCase() : `\`${part.toLowerCase().replaceAll('`', '``')}\``)).join('.');
}

/** Replaces a literal `FROM cat.sch.tbl` with the `IDENTIFIER(:table)` form, remembering the name. */
function literalFromClause(tokens: SqlToken[]): { tokens: SqlToken[]; table: string | null } {
  const from = tokens.findIndex((token) => token.type === 'word' && token.text === 'from');
  if (from < 0) return { tokens, table: null };
  const next = tokens[from + 1];
  if (!next || next.type === 'param' || (next.type === 'word' && next.text === 'identifier')) return { tokens, table: null };
  const parts: string[] = [];
  let index = from + 1;
  for (;;) {
    const token = tokens[index];
    if (!token || (token.type !== 'word' && token.type !== 'quoted')) break;
    // Written back as SQL, so the name is read by the same rules as an IDENTIFIER(:table) string: a
    // quoted part is quoted again, and `dev-catalog` (three tokens) stays one invalid part.
    let part = token.type === 'quoted' ? `\`${token.text.replaceAll('`', '``')}\`` : token.text;
    while (token.type === 'word' && tokens[index + 1]?.type === 'punct' && tokens[index + 1]!.text === '-' && (tokens[index + 2]?.type === 'word' || tokens[index + 2]?.type === 'number')) {
      part += `-${tokens[index + 2]!.text}`;
      index += 2;
    }
    parts.push(part);
    if (tokens[index + 1]?.type === 'punct' && tokens[index + 1]!.text === '.') index += 2;
    else {
      index += 1;
      break;
    }
  }
  const replaced: SqlToken[] = [
    ...tokens.slice(0, from + 1),
    { type: 'word', text: 'identifier' },
    { type: 'punct', text: '(' },
    { type: 'param', text: 'table' },
    { type: 'punct', text: ')' },
    ...tokens.slice(index),
  ];
  return { tokens: replaced, table: parts.join('.') };
}

function parseJsonStringArray(value: string | null | undefined): Set<string> | null {
  // from_json is permissive: malformed input yields NULL, and array_contains(NULL, x) is NULL (false).
  if (value === null || value === undefined) return null;
  try {
    const parsed = JSON.parse(value) as unknown;
    if (!Array.isArray(parsed)) return null;
    return new Set(parsed.filter((item): item is string => typeof item === 'string'));
  } catch {
    return null;
  }
}

function key(row: ProgressRow): string {
  return [row.query_id, row.run_id, row.batch_id === null ? null : String(row.batch_id), row.event_time_ms === null ? null : String(row.event_time_ms)]
    .filter((part) => part !== null)
    .join('/');
}

export function evaluateStatement(
  statement: string,
  params: StatementParam[],
  tables: Map<string, ProgressTable>,
  nowMs: number,
): Evaluation {
  let tokens: SqlToken[];
  try {
    tokens = tokenize(statement);
  } catch (error) {
    const position = error instanceof SqlSyntaxError ? error.position : 0;
    return { ok: false, failure: sqlFailure('PARSE_SYNTAX_ERROR', '42601', `Syntax error at or near position ${position}.`) };
  }
  while (tokens.at(-1)?.type === 'punct' && tokens.at(-1)!.text === ';') tokens.pop();
  if (sameTokens(tokens, SELECT_ONE)) {
    return { ok: true, columns: [{ name: '1', type_name: 'INT', type_text: 'INT' }], rows: [['1']] };
  }

  const literal = literalFromClause(tokens);
  if (!sameTokens(literal.tokens, PROGRESS_PAGE_TOKENS)) {
    return {
      ok: false,
      failure: sqlFailure(
        'UNSUPPORTED_FEATURE',
        '0A000',
        'The local Databricks evaluates only the statements StreamDoctor sends (the progress-table page query and SELECT 1).',
      ),
    };
  }

  const bound = new Map(params.map((param) => [param.name, param]));
  for (const token of literal.tokens) {
    if (token.type === 'param' && !(token.text === 'table' && literal.table) && !bound.has(token.text)) {
      return {
        ok: false,
        failure: sqlFailure('UNBOUND_SQL_PARAMETER', '42P02', `Found the unbound parameter: ${token.text}. Please, fix \`args\` and provide a mapping of the parameter to either a SQL literal or collection constructor functions.`),
      };
    }
  }
  const tableText = literal.table ?? bound.get('table')?.value ?? '';
  const parsedName = parseTableName(tableText);
  if (!parsedName.ok) return { ok: false, failure: parsedName.failure };
  const tableName = normalizeTableName(tableText);
  if (!tableName) {
    return { ok: false, failure: sqlFailure('INVALID_SQL_SYNTAX.INVALID_TABLE_VALUED_FUNC_NAME', '42000', `Invalid table name ${JSON.stringify(tableText)}.`) };
  }
  const table = tables.get(tableName);
  if (!table) return { ok: false, failure: tableNotFound(parsedName.parts.map((part) => part.toLowerCase()).join('.')) };

  const afterUsText = bound.get('after_us')?.value ?? null;
  if (afterUsText !== null && !/^-?\d+$/.test(afterUsText.trim())) {
    return { ok: false, failure: sqlFailure('CAST_INVALID_INPUT', '22018', `The value '${afterUsText}' of the type "STRING" cannot be cast to "BIGINT" because it is malformed.`) };
  }
  const ids = parseJsonStringArray(bound.get('query_ids')?.value);
  const names = parseJsonStringArray(bound.get('query_names')?.value);
  const afterKey = bound.get('after_key')?.value ?? null;
  // Comparisons with NULL are NULL: no row passes.
  if (afterUsText === null) return { ok: true, columns: PROGRESS_COLUMNS, rows: [] };
  const afterUs = Number(afterUsText);

  // One pass over the rows: numeric and set tests first, the row key (string building) only where
  // it decides something: a row stamped exactly at the position, or a tie in the ORDER BY.
  const selected: { row: ProgressRow; key: string | null }[] = [];
  const wanted = (row: ProgressRow) => (ids?.has(row.query_id) ?? false) || (row.query_name !== null && (names?.has(row.query_name) ?? false));
  let sorted = true;
  let previousUs = Number.NEGATIVE_INFINITY;
  for (const row of table.allRows()) {
    if (row.visible_at_ms > nowMs || row.ingested_us < afterUs || !wanted(row)) continue;
    let rowKey: string | null = null;
    if (row.ingested_us === afterUs) {
      rowKey = key(row);
      if (afterKey === null || !(rowKey > afterKey)) continue;
    }
    // Ties in ingested_at are ordered by key, so they count as unsorted.
    if (row.ingested_us <= previousUs) sorted = false;
    previousUs = row.ingested_us;
    selected.push({ row, key: rowKey });
  }
  if (!sorted) {
    const keyOf = (entry: { row: ProgressRow; key: string | null }) => (entry.key ??= key(entry.row));
    selected.sort((a, b) => {
      if (a.row.ingested_us !== b.row.ingested_us) return a.row.ingested_us - b.row.ingested_us;
      const ka = keyOf(a);
      const kb = keyOf(b);
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
  }
  return {
    ok: true,
    columns: PROGRESS_COLUMNS,
    rows: selected.map(({ row }) => [
      row.query_id,
      row.run_id,
      row.batch_id === null ? null : String(row.batch_id),
      row.event_time_ms === null ? null : String(row.event_time_ms),
      String(row.ingested_us),
      row.progress_json,
    ]),
  };
}
