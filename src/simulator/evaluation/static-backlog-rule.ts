/**
 * The anchor the engine is measured against: a Databricks job health rule
 * `STREAMING_BACKLOG_SECONDS GREATER_THAN 600`, evaluated on a 10-minute average of the time behind.
 * Time behind is computed from the progress as Databricks would from the source: Kafka offsets
 * behind latest (latestOffset − endOffset, summed over partitions) divided by the arrival rate
 * measured from latestOffset growth between reports; with several Kafka sources, the largest. Sources without offsets to measure that (files,
 * rate) have no seconds metric, so the rule cannot fire on them.
 */

import type { Progress } from '../../progress/types.js';

export interface StaticRuleOptions {
  /** @defaultValue 600 */
  thresholdSec?: number;
  /** @defaultValue 600000 (10 minutes) */
  windowMs?: number;
}

/** Per Kafka source: the sum of its partitions' latest offsets, and how far the batch's end is behind them. */
function kafkaTotals(p: Progress): Map<string, { latest: number; behind: number }> {
  const out = new Map<string, { latest: number; behind: number }>();
  p.sources.forEach((source, i) => {
    if (source.kind !== 'kafka') return;
    const latest = source.latestOffset;
    const end = source.endOffset;
    if (!latest || typeof latest !== 'object' || !end || typeof end !== 'object') return;
    let latestSum = 0;
    let behind = 0;
    for (const [topic, partitions] of Object.entries(latest as Record<string, Record<string, number>>)) {
      const ends = (end as Record<string, Record<string, number>>)[topic] ?? {};
      for (const [partition, offset] of Object.entries(partitions)) {
        if (typeof offset !== 'number') continue;
        latestSum += offset;
        const e = ends[partition];
        if (typeof e === 'number') behind += Math.max(0, offset - e);
      }
    }
    out.set(`${i}:${source.description}`, { latest: latestSum, behind });
  });
  return out;
}

/** Feeds reports in order; `observe` says whether the rule is firing after this report. */
export class StaticBacklogRule {
  private readonly thresholdSec: number;
  private readonly windowMs: number;
  private previous = new Map<string, { atMs: number; latest: number }>();
  private samples: { atMs: number; sec: number }[] = [];

  constructor(options: StaticRuleOptions = {}) {
    this.thresholdSec = options.thresholdSec ?? 600;
    this.windowMs = options.windowMs ?? 600_000;
  }

  /**
   * The time behind this report shows, seconds: the largest over its Kafka sources of backlog ÷
   * arrival rate; null when it cannot be computed.
   */
  timeBehind(p: Progress): number | null {
    const atMs = p.timestampMs + p.batchDurationMs;
    let worst: number | null = null;
    for (const [key, totals] of kafkaTotals(p)) {
      const prev = this.previous.get(key);
      this.previous.set(key, { atMs, latest: totals.latest });
      let sec: number | null = null;
      if (totals.behind === 0) sec = 0;
      else if (prev && atMs > prev.atMs) {
        const rate = (totals.latest - prev.latest) / ((atMs - prev.atMs) / 1_000);
        sec = rate > 0 ? totals.behind / rate : null;
      }
      if (sec !== null) worst = Math.max(worst ?? 0, sec);
    }
    return worst;
  }

  observe(p: Progress): boolean {
    const atMs = p.timestampMs + p.batchDurationMs;
    const sec = this.timeBehind(p);
    if (sec !== null) this.samples.push({ atMs, sec });
    while (this.samples.length > 0 && this.samples[0]!.atMs < atMs - this.windowMs) this.samples.shift();
    if (this.samples.length === 0) return false;
    const avg = this.samples.reduce((a, s) => a + s.sec, 0) / this.samples.length;
    return avg > this.thresholdSec;
  }
}
