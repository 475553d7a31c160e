/**
 * A cause with the advice that addresses it. Causes are ranked by confidence; advice follows the
 * order of the causes it belongs to, so the most likely fix comes first.
 */
import type { Advice, Cause } from '../types.js';

export interface Explained {
  cause: Cause;
  advice: Advice[];
}

export function rank(items: (Explained | null)[]): { causes: Cause[]; advice: Advice[] } {
  const present = items.filter((item): item is Explained => item !== null);
  present.sort((a, b) => b.cause.confidence - a.cause.confidence);
  const seen = new Set<string>();
  const causes: Cause[] = [];
  const advice: Advice[] = [];
  for (const item of present) {
    if (seen.has(item.cause.code)) continue;
    seen.add(item.cause.code);
    causes.push({ ...item.cause, confidence: Math.round(clamp(item.cause.confidence) * 100) / 100 });
    for (const entry of item.advice) {
      if (!advice.some((existing) => existing.text === entry.text)) advice.push(entry);
    }
  }
  return { causes, advice };
}

export function clamp(value: number, low = 0, high = 1): number {
  return Math.min(high, Math.max(low, value));
}
