/**
 * The pipeline event-log filter grammar (reference §2c): `level='INFO'`, `level in ('INFO','WARN')`,
 * `id='<event-id>'`, `timestamp <op> 'TS'` with op in > >= < <= =, joined by AND. Nothing else.
 */

export type EventPredicate = (event: { id: string; level: string; timestampMs: number }) => boolean;

export class FilterError extends Error {}

// The grammar names INFO, WARN and ERROR; METRICS is the one other event level there is.
const LEVELS = new Set(['INFO', 'WARN', 'ERROR', 'METRICS']);

function level(text: string): string {
  const value = text.toUpperCase();
  if (!LEVELS.has(value)) throw new FilterError(`'${text}' is not an event level (INFO, WARN, ERROR, METRICS)`);
  return value;
}

const CLAUSE = [
  {
    re: /^level\s*=\s*'([A-Z]+)'$/i,
    make: (m: RegExpExecArray): EventPredicate => {
      const wanted = level(m[1]!);
      return (e) => e.level === wanted;
    },
  },
  {
    re: /^level\s+in\s*\(\s*('[A-Z]+'(?:\s*,\s*'[A-Z]+')*)\s*\)$/i,
    make: (m: RegExpExecArray): EventPredicate => {
      const levels = new Set(m[1]!.split(',').map((part) => level(part.trim().replace(/'/g, ''))));
      return (e) => levels.has(e.level);
    },
  },
  { re: /^id\s*=\s*'([^']+)'$/i, make: (m: RegExpExecArray): EventPredicate => (e) => e.id === m[1] },
  {
    re: /^timestamp\s*(>=|<=|>|<|=)\s*'([^']+)'$/i,
    make: (m: RegExpExecArray): EventPredicate => {
      const at = Date.parse(m[2]!);
      if (!Number.isFinite(at)) throw new FilterError(`'${m[2]}' is not a timestamp`);
      const op = m[1]!;
      return (e) =>
        op === '>' ? e.timestampMs > at : op === '>=' ? e.timestampMs >= at : op === '<' ? e.timestampMs < at : op === '<=' ? e.timestampMs <= at : e.timestampMs === at;
    },
  },
];

export function parseEventFilter(filter: string): EventPredicate {
  const clauses = filter.split(/\s+and\s+/i).map((clause) => clause.trim());
  const predicates = clauses.map((clause) => {
    for (const { re, make } of CLAUSE) {
      const match = re.exec(clause);
      if (match) return make(match);
    }
    throw new FilterError(`unsupported filter clause "${clause}"; supported: level='INFO', level in ('INFO','WARN'), id='…', timestamp > '…' joined with AND`);
  });
  return (event) => predicates.every((predicate) => predicate(event));
}
