/** A small SQL tokenizer: enough to compare statement shapes and find named parameter markers. */

export type SqlToken =
  | { type: 'word'; text: string }
  | { type: 'string'; text: string }
  | { type: 'number'; text: string }
  | { type: 'param'; text: string }
  | { type: 'quoted'; text: string }
  | { type: 'punct'; text: string };

export class SqlSyntaxError extends Error {
  constructor(message: string, readonly position: number) {
    super(message);
  }
}

export function tokenize(sql: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (/\s/.test(ch)) {
      i += 1;
    } else if (ch === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') i += 1;
    } else if (ch === "'" || ch === '"') {
      let j = i + 1;
      let text = '';
      while (j < sql.length && sql[j] !== ch) {
        if (sql[j] === '\\' && j + 1 < sql.length) j += 1;
        text += sql[j];
        j += 1;
      }
      if (j >= sql.length) throw new SqlSyntaxError(`unterminated string literal starting at position ${i}`, i);
      tokens.push({ type: 'string', text });
      i = j + 1;
    } else if (ch === '`') {
      const end = sql.indexOf('`', i + 1);
      if (end < 0) throw new SqlSyntaxError(`unterminated quoted identifier at position ${i}`, i);
      tokens.push({ type: 'quoted', text: sql.slice(i + 1, end) });
      i = end + 1;
    } else if (ch === ':' && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      const match = /^:([A-Za-z_][A-Za-z0-9_]*)/.exec(sql.slice(i))!;
      tokens.push({ type: 'param', text: match[1]! });
      i += match[0].length;
    } else if (/[A-Za-z_]/.test(ch)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i))!;
      tokens.push({ type: 'word', text: match[0].toLowerCase() });
      i += match[0].length;
    } else if (/[0-9]/.test(ch)) {
      const match = /^[0-9]+(\.[0-9]+)?/.exec(sql.slice(i))!;
      tokens.push({ type: 'number', text: match[0] });
      i += match[0].length;
    } else {
      const two = sql.slice(i, i + 2);
      if (two === '>=' || two === '<=' || two === '<>' || two === '!=') {
        tokens.push({ type: 'punct', text: two });
        i += 2;
      } else {
        tokens.push({ type: 'punct', text: ch });
        i += 1;
      }
    }
  }
  return tokens;
}

export function sameTokens(a: SqlToken[], b: SqlToken[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((token, index) => {
    const other = b[index]!;
    if (token.type === 'string' && other.type === 'string') return token.text.toUpperCase() === other.text.toUpperCase();
    return token.type === other.type && token.text === other.text;
  });
}
