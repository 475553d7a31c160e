import { describe, expect, it } from 'vitest';
import { SimulatorSpecError, SimulatorTimeError, StreamSimulator, type StreamSpec } from '../../src/simulator/index.js';

const good: StreamSpec = {
  arrival: 1_000,
  processing: { rowsPerSecPerCore: 2_500 },
  source: { kind: 'kafka', partitions: 4 },
};

describe('spec validation', () => {
  it('names every problem with its path and what to write', () => {
    const bad = {
      arrival: -5,
      processing: { rowsPerSecPerCore: 0, cores: 2.5 },
      source: { kind: 'kafka', partitions: 0, maxOffsetsPerTrigger: -1 },
      platform: 'dbr-99',
      events: [{ type: 'restart', atBatch: -1, downtimeMs: 10 }],
    } as unknown as StreamSpec;
    let error: unknown;
    try {
      new StreamSimulator(bad);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SimulatorSpecError);
    const e = error as SimulatorSpecError;
    expect(e.code).toBe('streamdoctor_simulator_invalid_spec');
    expect(e.problems).toEqual([
      'arrival must be rows/s ≥ 0 or a function of time (got -5)',
      'processing.rowsPerSecPerCore must be a number > 0 (got 0)',
      'processing.cores must be an integer > 0 (got 2.5)',
      'source.partitions must be an integer > 0 (got 0)',
      'source.maxOffsetsPerTrigger must be a number > 0 or null (got -1)',
      'platform must be dbr-17.1, dbr-17.0, spark-3.5, spark-4.0 or spark-3.0 (got "dbr-99")',
      'events[0].atBatch must be an integer ≥ 0 (got -1)',
    ]);
  });

  it('rejects an unknown source kind and a missing processing block', () => {
    expect(() => new StreamSimulator({ arrival: 1, source: { kind: 'socket' } } as unknown as StreamSpec)).toThrow(
      /processing must be an object.*source.kind must be kafka, delta, autoloader, kinesis or rate \(got "socket"\)/,
    );
  });

  it('a runaway overload stops with a typed error instead of printing impossible timestamps', () => {
    const sim = new StreamSimulator({ ...good, arrival: 100_000, processing: { rowsPerSecPerCore: 100, cores: 1 } }, { seed: 1 });
    let error: unknown;
    for (let i = 0; i < 500 && !error; i++) {
      try {
        sim.next();
      } catch (e) {
        error = e;
      }
    }
    expect(error).toBeInstanceOf(SimulatorTimeError);
    expect((error as SimulatorTimeError).code).toBe('streamdoctor_simulator_time_overflow');
  });

  it('accepts a valid spec', () => {
    expect(new StreamSimulator(good).next().progress.batchId).toBe(0);
  });
});
