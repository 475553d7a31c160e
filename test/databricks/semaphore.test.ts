import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../src/databricks/semaphore.js';

describe('Semaphore', () => {
  it('never runs more than its limit at once and runs every task', async () => {
    const semaphore = new Semaphore(2);
    let active = 0;
    let peak = 0;
    const done: number[] = [];
    await Promise.all(
      Array.from({ length: 7 }, (_, index) =>
        semaphore.run(async () => {
          active += 1;
          peak = Math.max(peak, active);
          await new Promise((resolve) => setTimeout(resolve, 5));
          active -= 1;
          done.push(index);
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(done.sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('releases its slot when a task throws', async () => {
    const semaphore = new Semaphore(1);
    await expect(semaphore.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(semaphore.run(async () => 5)).resolves.toBe(5);
  });
});
