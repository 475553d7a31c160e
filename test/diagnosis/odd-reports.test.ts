/**
 * Reports no publisher prints on purpose, fed to the engine among good ones: drawn streams of every
 * family and reporting mode with some reports broken at random (a field dropped, a number turned
 * into a string, a negative, 1e308, NaN's spellings, an object or an array in place of a value,
 * offsets of the wrong shape, a report repeated out of order). Whatever the parser lets through,
 * the engine must take without throwing, and every incident it tells must read as text a person
 * can act on: no NaN, Infinity, undefined, null, [object …] or 1e+308 in a summary, cause or
 * advice, no metric that is not a finite number, a date a report said in `openedAt`. Its state,
 * saved and restored as the worker does between detect jobs, must report the same open incidents.
 */
import { describe, expect, it } from 'vitest';
import { Diagnosis } from '../../src/diagnosis/engine.js';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import type { Incident } from '../../src/diagnosis/types.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { MIN_TIMESTAMP_MS } from '../../src/progress/values.js';
import { SeededRandom } from '../../src/simulator/random.js';
import { drawScenario } from '../../src/simulator/random/draw.js';
import { simulateRandom } from '../../src/simulator/random/simulate.js';
import { REPORTING_MODES } from '../../src/simulator/random/types.js';

/** Values put in place of a report's own, at any depth. */
const ODD: readonly unknown[] = [
  null, -1, 0, 1e308, -1e308, 2 ** 53 + 2, -0.5, 1e-9, true, {}, [], [1, 2], { a: 1 },
  'NaN', 'Infinity', '-5', '', 'abc', '1e400', '9999-12-31T23:59:59.999Z', '1970-01-01T00:00:00Z',
  '{"t":{"0":5}}', 'KafkaV2[Subscribe[x]]', 'DeltaSource[x]', 'KinesisSource[x]', 'CloudFilesSource[x]',
  { t: { 0: 'x' } }, { t: { 0: -5, 1: 1e20 } }, { reservoirVersion: 'a', index: 2 }, { seqNum: -4 },
];

/** `value` with some of its fields, at any depth, dropped or replaced by ODD ones. */
function broken(value: unknown, random: SeededRandom): unknown {
  if (value === null || typeof value !== 'object') return random.next() < 0.5 ? ODD[random.int(ODD.length)] : value;
  if (Array.isArray(value)) {
    const out = value.map((item) => (random.next() < 0.15 ? broken(item, random) : item));
    if (random.next() < 0.1) out.push(ODD[random.int(ODD.length)]);
    if (random.next() < 0.1) out.shift();
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const roll = random.next();
    if (roll < 0.04) continue;
    out[key] = roll < 0.12 ? broken(item, random) : item;
  }
  return out;
}

/**
 * Words that say a number or a value went missing on its way into the text, and numbers in
 * exponent form (a batch after batch -1e+308), which no figure a person reads is.
 */
const MISSING_VALUE = /\b(NaN|undefined|Infinity|null)\b|\[object |\de[+-]\d/;

/** Why `incident` does not read as a person would want, or null. */
function oddIncident(incident: Incident): string | null {
  const texts = [incident.summary, ...incident.causes.map((c) => c.evidence), ...incident.advice.flatMap((a) => [a.text, a.setting ?? '', a.value ?? ''])];
  const odd = texts.find((text) => MISSING_VALUE.test(text));
  if (odd !== undefined) return `text ${JSON.stringify(odd)}`;
  for (const [key, value] of Object.entries(incident.metrics ?? {})) {
    if (typeof value === 'number' && !Number.isFinite(value)) return `metric ${key} = ${value}`;
  }
  // A date a report said (the parser reads none before 2000 as one), not 1970's epoch.
  if (!(Date.parse(incident.openedAt) >= MIN_TIMESTAMP_MS)) return `openedAt ${JSON.stringify(incident.openedAt)}`;
  return null;
}

/** Open incidents as a report lists them: kind and when each opened. */
const openOf = (tracker: QueryTracker) =>
  tracker
    .report()
    .incidents.filter((i) => i.resolvedAt === null)
    .map((i) => `${i.kind}@${i.openedAt}`);

/** Feeds draw `seed` with a share `rate` of its reports broken: what went wrong, and how many incidents were read. */
function feedBroken(seed: number, rate: number): { problems: string[]; read: number } {
  const mode = REPORTING_MODES[seed % REPORTING_MODES.length]!;
  const reports = simulateRandom(drawScenario(seed, { mode, fileSizeSpread: seed % 3 === 0 ? 0.4 : 0 })).log.map((entry) => JSON.parse(entry.batch.json) as unknown);
  const random = new SeededRandom(seed);
  const problems: string[] = [];
  let read = 0;
  const diagnosis = new Diagnosis({
    onChange: (change) => {
      read += 1;
      const odd = oddIncident(change.incident);
      if (odd) problems.push(`${change.type} ${change.incident.kind}: ${odd}`);
    },
  });
  for (let i = 0; i < reports.length; i += 1) {
    let report = reports[i];
    if (random.next() < rate) report = broken(report, random);
    // A report again, out of its place (an at-least-once sink, overlapping reads).
    if (random.next() < 0.01) report = reports[random.int(reports.length)];
    const parsed = parseProgress(report);
    if (!parsed.ok) continue;
    diagnosis.add(parsed.progress);
    if (i % 97 === 96) {
      for (const tracker of diagnosis.trackers.values()) {
        const restored = QueryTracker.restore(JSON.parse(JSON.stringify(tracker.toState())));
        const [before, after] = [openOf(tracker), openOf(restored)];
        if (before.join() !== after.join()) problems.push(`restored state reports ${after.join()} for ${before.join()}`);
      }
    }
  }
  const output = diagnosis.finish();
  for (const query of output.queries) {
    for (const incident of query.incidents) {
      read += 1;
      const odd = oddIncident(incident);
      if (odd) problems.push(`report ${incident.kind}: ${odd}`);
    }
  }
  return { problems, read };
}

describe('reports broken at random among good ones', () => {
  // Seeds 900600-900655: every reporting mode 8 times, a few broken reports to most of them.
  const SEEDS = Array.from({ length: 56 }, (_, k) => 900_600 + k);

  it.each([0.03, 0.3, 0.9])('with %s of the reports broken, the engine takes them and tells clean incidents', (rate) => {
    let read = 0;
    const problems = SEEDS.flatMap((seed) => {
      const fed = feedBroken(seed, rate);
      read += fed.read;
      return fed.problems.map((problem) => `seed ${seed}: ${problem}`);
    });
    expect(problems).toEqual([]);
    // The checks read incidents (opened, updated, resolved, reported), not an empty list.
    expect(read).toBeGreaterThan(40);
  });
});
