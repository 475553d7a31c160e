import { describe, expect, it } from 'vitest';
import { capacityAdviceInWorkers, coresOfNodeType, type StreamCluster } from '../../src/capacity/index.js';
import type { Advice } from '../../src/diagnosis/types.js';

const fixed = (workers: number): StreamCluster => ({
  jobClusterKey: 'main',
  taskKey: null,
  nodeTypeId: 'm5.2xlarge',
  coresPerWorker: coresOfNodeType('m5.2xlarge'),
  size: { kind: 'fixed', workers },
});

const engine = (factor: number): Advice => ({
  text: `Give the query about ${factor.toFixed(2)}× its current throughput (load factor ${(factor / 1.15).toFixed(2)} plus headroom to drain the backlog): more or larger workers.`,
  throughputFactor: factor,
  loadFactor: factor / 1.15,
});

describe('the worker sum as shown', () => {
  // The reported cases (2 × 1.2649 read "2 × 1.26 = 2.53") and others whose rounding differs.
  it.each([
    [2, 1.2649],
    [2, 1.3249],
    [3, 1.1049],
    [7, 1.4449],
    [4, 1.311],
    [10, 1.2004],
  ])('%i workers × %f: the shown operands give the shown result and the worker count', (workers, factor) => {
    const advice = capacityAdviceInWorkers(engine(factor), fixed(workers))!;
    const sum = /(\d+) × ([\d.]+) = ([\d.]+), rounded up/.exec(advice.text);
    expect(sum, advice.text).not.toBeNull();
    const [, from, shown, product] = sum!;
    const digits = (product!.split('.')[1] ?? '').length;
    expect(Number(product), advice.text).toBeCloseTo(Number(from) * Number(shown), Math.max(digits, 2) + 1);
    expect(Math.ceil(Number(product))).toBe(Number(advice.value));
    // "about 1.26× its current throughput" names the same factor as the sum.
    expect(advice.text).toContain(`about ${shown}× its current throughput`);
  });
});
