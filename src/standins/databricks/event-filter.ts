/**
 * The pipeline event-log filter grammar (reference §2c): `level='INFO'`, `level in ('INFO','WARN')`,
 * `id='<event-id>'`, `timestamp <op> 'TS'` with op in > >= < <= =, joined by AND. Nothing else.
 */

export type EventPredicate = (event: { id: string; level: string; timestampMs: number }) => boolean;

export class FilterError extends Error {}

const CLAUSE = [
  { re: /^level\s*=\s*'([A-Z]+)'$/i, make: (m: RegExpExecArray): EventPredicate => (e) => e.level === m[1]!.toUpperCase() },
  {
    re: /^level\s+in\s*\(\s*('[A-Z]+'(?:\s*,\s*'[A-Z]+')*)\s*\)$/i,
    make: (m: RegExpExecArray): EventPredicate => {
      const levels = new Set(m[1]!.split(',').map((part) => part.trim().replace(/'/g, '').toUpperCase()));
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
