import { describe, expect, it } from 'vitest';
import { opened, runStream } from './run-stream.js';

const UNITS: Record<string, number> = { '': 1, K: 1e3, M: 1e6, B: 1e9 };
const value = (text: string): number => Number(text.slice(0, /[KMB]$/.test(text) ? -1 : undefined)) * UNITS[/[KMB]$/.exec(text)?.[0] ?? '']!;

describe('state growth evidence', () => {
  it('gives a per-batch growth that the figures it shows work out to', () => {
    const run = runStream(
      {
        name: 'sessions',
        arrival: 6_000,
        processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 1_200 },
        triggerMs: 30_000,
        source: { kind: 'kafka', partitions: 16 },
        state: { watermarkMs: null, newKeysPerRow: 0.2 },
      },
      60,
    );
    expect(opened(run, 'state_growth')).toHaveLength(1);
    const incident = run.tracker.report().incidents.find((i) => i.kind === 'state_growth')!;
    const evidence = incident.causes.find((c) => c.code === 'unbounded_state')!.evidence;
    // The total growth and the steps it is spread over are shown, and the per-batch figure is their quotient.
    const shown = /\+([\d.]+[KMB]?) over (\d+) steps between (\d+) batches, \+([\d.]+[KMB]?) per batch/.exec(evidence);
    expect(shown, evidence).not.toBeNull();
    const [, total, steps, batches, perBatch] = shown!;
    expect(Number(steps)).toBe(Number(batches) - 1);
    expect(Math.abs(value(total!) / Number(steps) - value(perBatch!)) / value(perBatch!), evidence).toBeLessThan(0.01);
  });
});
