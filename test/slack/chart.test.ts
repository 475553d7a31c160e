import { describe, expect, it } from 'vitest';
import { renderTimeBehindChart } from '../../src/slack/chart/time-behind-chart.js';
import { buildTimeBehindSpec } from '../../src/slack/chart/time-behind-spec.js';
import { NOW } from './helpers/incidents.js';

const HOUR = 3_600_000;

function series() {
  // 15-minute buckets over 24 h: orders-enrich falls behind in the last 12 h, the others stay near zero.
  return ['orders-enrich', 'clickstream-sessionize', 'payments-dedupe'].map((name, index) => ({
    name,
    points: Array.from({ length: 97 }, (_, k) => ({
      atMs: NOW - 24 * HOUR + k * 15 * 60_000,
      timeBehindSec: index === 0 ? Math.max(0, (k - 48) * 18) : 4 + index * 3 + ((k * 7) % 5),
    })),
  }));
}

describe('time-behind chart', () => {
  it('builds a spec with one line per stream in a unit that fits the peak', () => {
    const extra = { name: 'old-stream', points: [{ atMs: NOW - 30 * HOUR, timeBehindSec: 9999 }] };
    const { spec, drawn, unit, omitted } = buildTimeBehindSpec([...series(), extra], { nowMs: NOW });
    expect(drawn[0]).toBe('orders-enrich');
    expect(drawn).not.toContain('old-stream'); // outside the window
    expect(omitted).toBe(0);
    expect(unit).toBe('min'); // peak 864 s
    const values = (spec.data as { values: { stream: string; behind: number }[] }).values;
    expect(Math.max(...values.filter((value) => value.stream === 'orders-enrich').map((value) => value.behind))).toBeCloseTo(14.4, 1);
  });

  it('draws only the worst streams when there are many and says so in the title', () => {
    const many = Array.from({ length: 20 }, (_, index) => ({ name: `s${index}`, points: [{ atMs: NOW - HOUR, timeBehindSec: index }] }));
    const { drawn, omitted, spec } = buildTimeBehindSpec(many, { nowMs: NOW, maxSeries: 5 });
    expect(drawn).toEqual(['s19', 's18', 's17', 's16', 's15']);
    expect(omitted).toBe(15);
    expect(JSON.stringify(spec.title)).toContain('15 more not drawn');
  });

  it('renders a PNG with the bundled font and the stream names in the picture', async () => {
    const chart = await renderTimeBehindChart(series(), { nowMs: NOW });
    expect(chart.png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(chart.width).toBeGreaterThan(1000);
    expect(chart.svg).toContain('orders-enrich');
    expect(chart.svg).toContain('DejaVu Sans');
    expect(chart.png.length).toBeGreaterThan(20_000);
    const empty = await renderTimeBehindChart([], { nowMs: NOW });
    expect(empty.png.length).toBeLessThan(chart.png.length);
  });
});
