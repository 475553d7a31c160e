/** Scenarios record their figures here; the global setup prints them as one table at the end. */
import { appendFileSync } from 'node:fs';
import { inject } from 'vitest';
import type { AlertFigures } from '../../helpers/alert-ledger.js';

export function recordFigures(figures: AlertFigures): void {
  appendFileSync(inject('faultsFiguresFile'), `${JSON.stringify(figures)}\n`);
}

export function faultsSeed(): number {
  return inject('faultsSeed');
}

/** mulberry32: a small seeded RNG, so kill points and fault timings replay from the printed seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
