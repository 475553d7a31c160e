/**
 * Realistic progress for the source tests: the simulator prints it exactly as Spark/Databricks does
 * (Kafka source, RocksDB state, Delta sink), one simulator per query.
 */
import { StreamSimulator, type StreamSpec } from '../../src/simulator/index.js';

export function kafkaAggSpec(name: string, id?: string): StreamSpec {
  return {
    id,
    name,
    arrival: 2_000,
    processing: { rowsPerSecPerCore: 500, cores: 8 },
    triggerMs: 10_000,
    source: { kind: 'kafka', topic: 'orders', partitions: 8 },
    state: { operator: 'stateStoreSave', watermarkMs: 600_000 },
  };
}

/** `count` consecutive batches of one query as compact JSON, with the simulated end time of each. */
export function simulatedBatches(name: string, count: number, startMs: number, seed = 1): { json: string; endMs: number; id: string; batchId: number }[] {
  const simulator = new StreamSimulator(kafkaAggSpec(name), { startMs, seed });
  const out = [];
  for (let i = 0; i < count; i += 1) {
    const batch = simulator.next();
    out.push({ json: batch.json, endMs: batch.endMs, id: String(batch.progress.id), batchId: Number(batch.progress.batchId) });
  }
  return out;
}

export function simulator(name: string, startMs: number, seed = 1): StreamSimulator {
  return new StreamSimulator(kafkaAggSpec(name), { startMs, seed });
}
