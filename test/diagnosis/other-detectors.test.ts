import { describe, expect, it } from 'vitest';
import { resolveEngineOptions } from '../../src/diagnosis/engine.js';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { steppedRate } from '../../src/simulator/index.js';
import { MIN, START, opened, runStream } from './run-stream.js';

const cluster = { rowsPerSecPerCore: 2_500, cores: 8, overheadMs: 1_200 };

describe('state_growth', () => {
  it('fires on an aggregation without watermark and advises withWatermark', () => {
    const run = runStream(
      {
        name: 'sessions',
        arrival: 6_000,
        processing: cluster,
        triggerMs: 30_000,
        source: { kind: 'kafka', partitions: 16 },
        state: { watermarkMs: null, newKeysPerRow: 0.2 },
      },
      60,
    );
    const state = opened(run, 'state_growth');
    expect(state).toHaveLength(1);
    const incident = run.tracker.report().incidents.find((i) => i.kind === 'state_growth')!;
    expect(incident.causes[0]!.code).toBe('unbounded_state');
    expect(incident.causes[0]!.evidence).toMatch(/no watermark/);
    expect(incident.advice[0]).toMatchObject({ setting: 'withWatermark' });
    expect(incident.advice[0]!.value).toMatch(/"event_time", "\d+ minutes"/);
  });

  it('does not fire on bounded state with a watermark that rises, fills, and is evicted', () => {
    const run = runStream(
      {
        arrival: 6_000,
        processing: cluster,
        triggerMs: 10_000,
        source: { kind: 'kafka', partitions: 16 },
        state: { watermarkMs: 10 * 60_000 },
      },
      300,
    );
    expect(opened(run, 'state_growth')).toEqual([]);
  });

  it('names the in-memory provider when large state lives on the JVM heap', () => {
    const run = runStream(
      {
        arrival: 6_000,
        processing: cluster,
        triggerMs: 60_000,
        source: { kind: 'kafka', partitions: 16 },
        state: { provider: 'hdfs', watermarkMs: null, bytesPerRow: 1_200, initialRows: 4_000_000 },
        platform: 'spark-3.5',
      },
      30,
    );
    const incident = run.tracker.report().incidents.find((i) => i.kind === 'state_growth')!;
    const codes = incident.causes.map((c) => c.code);
    expect(codes).toContain('state_store_memory');
    const advice = incident.advice.find((a) => a.setting === 'spark.sql.streaming.stateStore.providerClass');
    expect(advice?.value).toMatch(/RocksDBStateStoreProvider$/);
  });
});

describe('slow_repartition', () => {
  const spec = (initialRows: number) => ({
    arrival: 5_000,
    processing: cluster,
    triggerMs: 30_000,
    source: { kind: 'kafka' as const, partitions: 16 },
    state: { watermarkMs: 30 * MIN, initialRows, bytesPerRow: 400 },
    events: [{ type: 'restart' as const, atBatch: 20, downtimeMs: MIN, stateStorePartitions: 64 }],
  });

  it('fires once on a repartition above the 10 minute threshold and resolves with the next batch', () => {
    const run = runStream(spec(120_000_000), 30);
    const changes = run.changes.filter((c) => c.incident.kind === 'slow_repartition');
    expect(changes.map((c) => c.type)).toEqual(['opened', 'resolved']);
    const incident = changes[0]!.incident;
    expect(incident.metrics?.repartitionMs).toBeGreaterThan(600_000);
    expect(incident.metrics?.stateBytes).toBeGreaterThan(10 * 1024 ** 3);
    expect(incident.summary).toMatch(/State repartition took .* above the 10m threshold/);
    expect(incident.causes[0]!.code).toBe('large_state_repartition');
  });

  it('stays quiet for a quick repartition of small state, and honours a lower threshold', () => {
    expect(runStream(spec(2_000_000), 30).changes).toEqual([]);
    const strict = runStream(spec(2_000_000), 30, { repartitionThresholdMs: 10_000 });
    expect(opened(strict, 'slow_repartition')).toHaveLength(1);
  });
});

describe('stalled', () => {
  it('is judged at now: silent far longer than the cadence while data waits', () => {
    const run = runStream(
      { arrival: 8_000, processing: cluster, triggerMs: 30_000, source: { kind: 'kafka', partitions: 16 } },
      40,
    );
    expect(run.tracker.tick(run.lastEndMs + 2 * MIN)).toEqual([]);
    expect(run.tracker.report(run.lastEndMs + 2 * MIN).health).toBe('ok');
    const now = run.lastEndMs + 30 * MIN;
    // report(now) shows it without changing the tracker; tick(now) records it.
    expect(run.tracker.report(now).incidents[0]!.kind).toBe('stalled');
    const changes = run.tracker.tick(now);
    expect(changes.map((c) => `${c.type}:${c.incident.kind}`)).toEqual(['opened:stalled']);
    expect(changes[0]!.incident.severity).toBe('critical');
    expect(changes[0]!.incident.metrics?.silentSec).toBe(30 * 60);
    expect(run.tracker.tick(now + MIN)).toEqual([]); // no repeat
    // Its advice says how long the batch has run as of now, as its summary does, not as of the opening.
    run.tracker.tick(now + 40 * MIN);
    const later = run.tracker.report(now + 40 * MIN).incidents.find((i) => i.kind === 'stalled')!;
    expect(later.summary).toContain('No progress for 1h 10m');
    expect(later.advice[0]!.text).toContain('has run for 1h 10m');
  });

  it('a run that restarted after the last report is silent from its start, with a new run’s patience', () => {
    const run = runStream(
      { arrival: 8_000, processing: cluster, triggerMs: 30_000, source: { kind: 'kafka', partitions: 16 } },
      40,
    );
    // Down for 10 min, then a new run plans its first batch over the backlog: 14 min after the
    // last report (4 min into the new run) progress alone reads a stall, the run start does not.
    const restartedAt = run.lastEndMs + 10 * MIN;
    const now = run.lastEndMs + 14 * MIN;
    expect(run.tracker.report(now).health).toBe('critical');
    expect(run.tracker.report(now, { runStartedAtMs: restartedAt }).health).toBe('ok');
    expect(run.tracker.tick(now, { runStartedAtMs: restartedAt })).toEqual([]);
    // A run start older than the last report says nothing new.
    expect(run.tracker.report(now, { runStartedAtMs: run.lastEndMs - 60 * MIN }).health).toBe('critical');
    // A new run that stays silent past the patience of a run without history is a stall, dated from its start.
    const late = restartedAt + 21 * MIN;
    const changes = run.tracker.tick(late, { runStartedAtMs: restartedAt });
    expect(changes.map((c) => `${c.type}:${c.incident.kind}`)).toEqual(['opened:stalled']);
    expect(changes[0]!.incident.metrics?.silentSec).toBe(21 * 60);
    expect(Date.parse(changes[0]!.incident.openedAt)).toBe(restartedAt + 20 * MIN);
  });

  it('on a query with large state, says the silence may be state work a restart would start over', () => {
    const stateful = { arrival: 8_000, processing: cluster, triggerMs: 30_000, source: { kind: 'kafka' as const, partitions: 16 } };
    const big = runStream({ ...stateful, state: { watermarkMs: 30 * MIN, initialRows: 40_000_000, provider: 'rocksdb' } }, 40);
    const advice = big.tracker.report(big.lastEndMs + 30 * MIN).incidents[0]!.advice[0]!.text;
    expect(advice).toMatch(/state rows it may be busy in one long batch repartitioning or loading its state.*a restart starts that work over\. If the run has failed or hung, restart it/);
    const small = runStream(stateful, 40);
    expect(small.tracker.report(small.lastEndMs + 30 * MIN).incidents[0]!.advice[0]!.text).not.toMatch(/state rows/);
  });

  it('an idle query (nothing arriving, nothing behind) may be silent', () => {
    const run = runStream(
      {
        arrival: steppedRate(8_000, [{ atMs: START + 10 * MIN, rowsPerSec: 0 }]),
        processing: cluster,
        triggerMs: 30_000,
        source: { kind: 'kafka', partitions: 16 },
        noDataProgressEventIntervalMs: 10 * 60_000,
      },
      40,
    );
    expect(run.tracker.tick(run.lastEndMs + 3 * 3_600_000)).toEqual([]);
  });

  it('is not judged on a query no report of which said when it ran (trimmed examples without a timestamp)', () => {
    const run = runStream(
      { arrival: 8_000, processing: cluster, triggerMs: 30_000, source: { kind: 'kafka', partitions: 16 } },
      40,
    );
    // The same reports with their timestamps cut off, judged at the dated query's clock, as
    // `diagnose` judges a file holding both: each is placed after the one before, from 1970.
    const undated = QueryTracker.create('undated', null);
    for (const line of run.json) {
      const { timestamp: _cut, ...report } = JSON.parse(line) as Record<string, unknown>;
      const parsed = parseProgress(report);
      if (!parsed.ok) throw new Error(parsed.error);
      undated.observe(parsed.progress);
    }
    expect(undated.report(run.lastEndMs).health).toBe('ok');
    expect(undated.tick(run.lastEndMs + 30 * MIN)).toEqual([]);
    // Dated, the same silence is a stall.
    expect(run.tracker.tick(run.lastEndMs + 30 * MIN).map((c) => c.incident.kind)).toEqual(['stalled']);
  });

  it('resolves when progress resumes', () => {
    const run = runStream(
      { arrival: 8_000, processing: cluster, triggerMs: 30_000, source: { kind: 'kafka', partitions: 16 } },
      41,
    );
    const last = JSON.parse(run.json.pop()!) as Record<string, unknown>;
    // Replay onto a tracker that has only the first 40 reports.
    const fresh = runStream(
      { arrival: 8_000, processing: cluster, triggerMs: 30_000, source: { kind: 'kafka', partitions: 16 } },
      40,
    );
    const lastTs = Date.parse(String(last.timestamp));
    expect(fresh.tracker.tick(lastTs + 40 * MIN).map((c) => c.type)).toEqual(['opened']);
    last.timestamp = new Date(lastTs + 45 * MIN).toISOString();
    const parsed = parseProgress(last);
    if (!parsed.ok) throw new Error(parsed.error);
    const changes = fresh.tracker.observe(parsed.progress);
    expect(changes.map((c) => `${c.type}:${c.incident.kind}`)).toContain('resolved:stalled');
  });
});

describe('data_loss_risk', () => {
  it('forecasts when time behind reaches a short retention, with the lag causes', () => {
    const run = runStream(
      {
        arrival: steppedRate(8_000, [{ atMs: START + 10 * MIN, rowsPerSec: 16_000 }]),
        processing: cluster,
        triggerMs: 30_000,
        source: { kind: 'kafka', partitions: 16, maxOffsetsPerTrigger: 300_000 },
      },
      120,
      { retentionMs: 2 * 3_600_000 },
    );
    expect(opened(run, 'data_loss_risk')).toHaveLength(1);
    const incident = run.tracker.report().incidents.find((i) => i.kind === 'data_loss_risk')!;
    expect(incident.metrics?.breachAt).toMatch(/^2026-09-14T/);
    expect(incident.summary).toMatch(/will reach the 2h retention in about/);
    expect(incident.causes[0]!.code).toBe('rate_limit_too_low');
    // With the default 7 days the same stream is no risk yet.
    const relaxed = runStream(
      {
        arrival: steppedRate(8_000, [{ atMs: START + 10 * MIN, rowsPerSec: 16_000 }]),
        processing: cluster,
        triggerMs: 30_000,
        source: { kind: 'kafka', partitions: 16, maxOffsetsPerTrigger: 300_000 },
      },
      120,
    );
    expect(opened(relaxed, 'data_loss_risk')).toEqual([]);
    expect(opened(relaxed, 'lag')).toHaveLength(1);
  });

  it('the warning horizon scales with the retention: half of it, at least a day, or as given', () => {
    expect(resolveEngineOptions({}).dataLossHorizonMs).toBe(3.5 * DAY);
    expect(resolveEngineOptions({ retentionMs: 2 * 3_600_000 }).dataLossHorizonMs).toBe(DAY);
    expect(resolveEngineOptions({ retentionMs: 30 * DAY }).dataLossHorizonMs).toBe(15 * DAY);
    expect(resolveEngineOptions({ dataLossHorizonMs: 2 * DAY }).dataLossHorizonMs).toBe(2 * DAY);
  });

  // A capped query (10,000 offsets per 60 s of 1,000 rows/s arriving: time behind ages 0.83 s/s)
  // restarted after an outage of some days, on the default 7-day retention.
  const afterOutage = (downDays: number) =>
    runStream(
      {
        name: 'archive',
        arrival: 1_000,
        processing: cluster,
        triggerMs: 60_000,
        source: { kind: 'kafka', topic: 'archive', partitions: 16, maxOffsetsPerTrigger: 10_000 },
        events: [{ type: 'restart', atBatch: 20, downtimeMs: downDays * DAY }],
      },
      60,
    );

  it('7-day retention: warns days ahead with the breach time, critical when it is close', () => {
    // 4.5 days behind, breach in ~3.3 days: within the 3.5-day horizon (a 24 h horizon said nothing).
    const early = afterOutage(4.5);
    const warning = early.tracker.report(early.lastEndMs).incidents.find((i) => i.kind === 'data_loss_risk')!;
    expect(warning.severity).toBe('warning');
    expect(warning.summary).toMatch(/is 4d \d+h old and will reach the 7d retention in about 3d \d+h \(2026-/);
    const breachInDays = (Date.parse(String(warning.metrics!.breachAt)) - early.lastEndMs) / DAY;
    expect(breachInDays).toBeGreaterThan(2.8);
    expect(breachInDays).toBeLessThan(3.5);
    expect(warning.metrics!.timeBehindTrendSecPerMin).toBeGreaterThan(45); // ~0.83 s/s
    expect(warning.metrics!.timeBehindTrendSecPerMin).toBeLessThan(55);
    // Far behind, the lag's trend comes from the rates too: growing, not "draining".
    const lag = early.tracker.report(early.lastEndMs).incidents.find((i) => i.kind === 'lag')!;
    expect(lag.summary).toMatch(/^Falling behind: .*growing [\dhms ]+ per minute$/);
    expect(lag.metrics!.timeBehindTrendSecPerMin).toBeGreaterThan(45);
    // 3.5 days behind, breach ~4.5 days out: lag only.
    const far = afterOutage(3.5);
    expect(opened(far, 'data_loss_risk')).toEqual([]);
    expect(opened(far, 'lag')).toHaveLength(1);
    // 6.5 days behind: past 80 % of the retention.
    const late = afterOutage(6.5);
    const critical = late.tracker.report(late.lastEndMs).incidents.find((i) => i.kind === 'data_loss_risk')!;
    expect(critical.severity).toBe('critical');
  });

  it('a longer dataLossHorizonMs warns earlier on the same stream', () => {
    const spec = {
      arrival: steppedRate(8_000, [{ atMs: START + 10 * MIN, rowsPerSec: 16_000 }]),
      processing: cluster,
      triggerMs: 30_000,
      source: { kind: 'kafka' as const, partitions: 16, maxOffsetsPerTrigger: 300_000 },
    };
    // Time behind ages ~0.4 s/s: the 7-day retention is ~17 days away.
    expect(opened(runStream(spec, 120), 'data_loss_risk')).toEqual([]);
    expect(opened(runStream(spec, 120, { dataLossHorizonMs: 30 * DAY }), 'data_loss_risk')).toHaveLength(1);
  });
});

const DAY = 86_400_000;
