import { describe, expect, it } from 'vitest';
import { metricFields } from '../../src/slack/render/incident-metrics.js';
import { opened, runStream } from '../diagnosis/run-stream.js';

// An alert read "Arriving vs processed … 12.7K rows/s" and, in its cause, "12K rows per second of
// busy time": the first is Spark's processedRowsPerSecond of the latest batch, the second the engine's
// capacity over the recent batches. Each must say which it is, or the pair reads as a contradiction.
describe('processing rates say which rate they are', () => {
  it('the metrics field names the latest batch, the cause the recent batches', () => {
    const run = runStream(
      {
        name: 'orders',
        arrival: 24_000,
        processing: { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 1_200 },
        triggerMs: 30_000,
        source: { kind: 'kafka', partitions: 16 },
      },
      80,
    );
    expect(opened(run, 'lag').length).toBeGreaterThan(0);
    const incident = run.tracker.report().incidents.find((i) => i.kind === 'lag')!;
    const rates = metricFields(incident.metrics, run.lastEndMs).find((field) => field.startsWith('*Arriving vs processed*'));
    expect(rates, JSON.stringify(incident.metrics)).toMatch(/vs [\d.]+K? rows\/s in the latest batch$/);
    const capacity = incident.causes.find((cause) => cause.code === 'insufficient_capacity');
    expect(capacity, JSON.stringify(incident.causes)).toBeDefined();
    expect(capacity!.evidence).toMatch(/rows per second of busy time over its recent batches/);
  });

  it('a processed rate alone names the latest batch too', () => {
    expect(metricFields({ processingRate: 12_700 }, 0)).toEqual(['*Processed*\n12.7K rows/s in the latest batch']);
  });
});
