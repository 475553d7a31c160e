/**
 * An incident's openedAt (and resolvedAt) in a saved state must be a date: the incident's id is its
 * kind and openedAt's epoch ms, so a string that is no date would name a phantom record and leave
 * the real alert open. Restore refuses such a state (detect then discards it, closing what it had open).
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { QueryTracker, TrackerStateError, type TrackerState } from '../../src/diagnosis/query-tracker.js';
import { readProgressInput } from '../../src/progress/read-progress-input.js';

const trace = readProgressInput(readFileSync(new URL('../fixtures/real-spark/kafka-capped-overload.jsonl', import.meta.url), 'utf8')).records.map((r) => r.progress);
const tracker = QueryTracker.create(trace[0]!.id, null);
for (const p of trace.slice(0, 150)) tracker.observe(p);
const base = JSON.parse(JSON.stringify(tracker.toState())) as TrackerState;

it.each(['NaN', 'yesterday', '2026-13-45T99:99:99Z', ''])('an open incident with openedAt %j is refused', (openedAt) => {
  const state = structuredClone(base);
  state.open.lag!.incident.openedAt = openedAt;
  expect(() => QueryTracker.restore(state)).toThrow(TrackerStateError);
  expect(() => QueryTracker.restore(state)).toThrow(/openedAt is not a date/);
});

it('a resolved incident with a resolvedAt that is no date is refused', () => {
  const state = structuredClone(base);
  state.resolved = [{ ...state.open.lag!.incident, resolvedAt: 'soon' }];
  expect(() => QueryTracker.restore(state)).toThrow(/resolvedAt is not a date or null/);
});

it('real dates restore', () => {
  expect(base.open.lag).toBeDefined();
  expect(() => QueryTracker.restore(structuredClone(base))).not.toThrow();
});
