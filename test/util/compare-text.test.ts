import { describe, expect, it } from 'vitest';
import { compareText } from '../../src/util/compare-text.js';

describe('compareText', () => {
  it('orders names case-insensitively, then by code point, so the order is total', () => {
    const names = ['payments_silver', 'Orders', 'orders', 'audit', 'Billing', 'b'];
    expect([...names].sort(compareText)).toEqual(['audit', 'b', 'Billing', 'Orders', 'orders', 'payments_silver']);
    expect(compareText('x', 'x')).toBe(0);
    expect(compareText('a', 'B')).toBeLessThan(0);
    expect(compareText('B', 'a')).toBeGreaterThan(0);
  });
});
