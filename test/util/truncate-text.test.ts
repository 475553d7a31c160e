import { describe, expect, it } from 'vitest';
import { truncateText } from '../../src/util/truncate-text.js';

describe('truncateText', () => {
  it('keeps text within the bound as it is', () => {
    expect(truncateText('payments', 8)).toBe('payments');
  });

  it('cuts longer text to the bound, the last character an ellipsis', () => {
    const cut = truncateText('payments_silver', 8);
    expect(cut).toBe('payment…');
    expect(cut.length).toBe(8);
  });

  it('never leaves half of a surrogate pair', () => {
    // '🚀' is two UTF-16 units: a cut after 'ab' plus its first half would leave a lone surrogate.
    const cut = truncateText('ab🚀cd', 4);
    expect(cut).toBe('ab…');
    expect(/[\ud800-\udbff](?![\udc00-\udfff])/.test(cut)).toBe(false);
  });
});
