/**
 * How the engine's serialized `TrackerState` is stored. Plain JSON text today: the ring of per-batch
 * features is already positional (no repeated keys), and V8 parses and prints JSON faster than any
 * re-encoding of it in JavaScript would be. One place to change it, with the reader accepting what
 * was written before.
 */

export function encodeState(state: unknown): string {
  return JSON.stringify(state);
}

/** Throws on anything unreadable (the caller starts a fresh tracker). */
export function decodeState(stored: Buffer | string): unknown {
  return JSON.parse(typeof stored === 'string' ? stored : stored.toString('utf8'));
}
