import { describe, expect, it } from 'vitest';
import { capFromReads, readsAtCap } from '../../src/diagnosis/admission-cap.js';

describe('capFromReads', () => {
  it('takes the roundest number within P − 1 above the highest read (people set round caps)', () => {
    expect(capFromReads(79_997, 8)).toBe(80_000);
    expect(capFromReads(29, 4)).toBe(30);
    expect(capFromReads(80_000, 8)).toBe(80_000);
    expect(capFromReads(73_951, 32)).toBe(73_960);
  });

  it('never goes below the highest read (floored shares never read more than the cap)', () => {
    expect(capFromReads(345, 110)).toBe(400);
    expect(capFromReads(73_953, 2)).toBe(73_953);
  });

  it('is the highest read itself on one partition or without a partition count', () => {
    expect(capFromReads(79_997, 1)).toBe(79_997);
    expect(capFromReads(79_997, 0)).toBe(79_997);
  });

  it('gives a cap the highest read still reads at', () => {
    for (const [high, partitions] of [[79_997, 8], [29, 4], [345, 110], [1_234_567, 200]] as const) {
      expect(readsAtCap(high, capFromReads(high, partitions), partitions)).toBe(true);
    }
  });
});
