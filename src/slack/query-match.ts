/**
 * Finds the stream a person means from what they typed: an exact id or name, else a partial match
 * when it is unambiguous. Ambiguous input returns the candidates so the reply can list them.
 */

export interface Matchable {
  queryId: string;
  name?: string | null;
}

export type MatchResult<T extends Matchable> =
  | { kind: 'match'; stream: T }
  | { kind: 'ambiguous'; candidates: T[] }
  | { kind: 'none'; suggestions: T[] };

const normalize = (text: string) => text.trim().toLowerCase();

export function matchQuery<T extends Matchable>(input: string, streams: readonly T[]): MatchResult<T> {
  const wanted = normalize(input);
  if (wanted === '') return { kind: 'none', suggestions: [] };
  // A job or pipeline is named after its job, so `job <id>` is matched to its entry `job-<id>` by id.
  const hostId = wanted.replace(/^(job|pipeline)[\s:=]+(\S+)$/, '$1-$2');
  const exact = streams.filter(
    (stream) => normalize(stream.queryId) === wanted || normalize(stream.queryId) === hostId || (stream.name != null && normalize(stream.name) === wanted),
  );
  if (exact.length === 1) return { kind: 'match', stream: exact[0]! };
  if (exact.length > 1) return { kind: 'ambiguous', candidates: exact };
  const prefix = streams.filter(
    (stream) => normalize(stream.queryId).startsWith(wanted) || (stream.name != null && normalize(stream.name).startsWith(wanted)),
  );
  if (prefix.length === 1) return { kind: 'match', stream: prefix[0]! };
  if (prefix.length > 1) return { kind: 'ambiguous', candidates: prefix };
  const partial = streams.filter((stream) => normalize(stream.queryId).includes(wanted) || (stream.name != null && normalize(stream.name).includes(wanted)));
  if (partial.length === 1) return { kind: 'match', stream: partial[0]! };
  if (partial.length > 1) return { kind: 'ambiguous', candidates: partial };
  const scored = streams
    .map((stream) => ({ stream, distance: Math.min(editDistance(wanted, normalize(stream.name ?? '')), editDistance(wanted, normalize(stream.queryId))) }))
    .filter((entry) => entry.distance <= Math.max(2, Math.floor(wanted.length / 4)))
    .sort((a, b) => a.distance - b.distance)
    .slice(0, 5);
  return { kind: 'none', suggestions: scored.map((entry) => entry.stream) };
}

/** Levenshtein distance, bounded to short strings (names are short; longer input just won't match). */
export function editDistance(a: string, b: string): number {
  if (a.length > 200 || b.length > 200) return Math.abs(a.length - b.length) + 100;
  const previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = previous[j]!;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}
