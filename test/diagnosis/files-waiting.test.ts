/**
 * Delta sources do not say how long their files have waited (their offsets name a table version
 * and a file index, not how many files a batch read); Auto Loader's seqNum does, so its time
 * behind is estimated. Either way people read something plain: files waiting and their trend, or
 * an estimate marked as such — in the engine's summary, the snapshot, the text report and Slack.
 */
import { describe, expect, it } from 'vitest';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import { renderTextReport } from '../../src/diagnosis/text-report.js';
import type { QuerySnapshot } from '../../src/diagnosis/types.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { labelScenario } from '../../src/simulator/scenario.js';
import { scenarioByName } from '../../src/simulator/scenarios/index.js';
import { metricFields } from '../../src/slack/render/incident-metrics.js';
import { streamLine } from '../../src/slack/render/status-table.js';
import type { StreamView } from '../../src/slack/render/types.js';

function track(name: string): { tracker: QueryTracker; endMs: number } {
  const run = labelScenario(scenarioByName(name)!);
  const tracker = QueryTracker.create('q1', null, run.scenario.engine);
  let endMs = 0;
  for (const batch of run.batches) {
    const parsed = parseProgress(JSON.parse(batch.json));
    if (!parsed.ok) throw new Error(parsed.error);
    tracker.observe(parsed.progress);
    endMs = batch.endMs;
  }
  return { tracker, endMs };
}

/** What the status command shows for a stored snapshot. */
const view = (s: QuerySnapshot): StreamView => ({
  queryId: s.id,
  name: s.name,
  health: s.health,
  timeBehindSec: s.timeBehindSec,
  timeBehindEstimated: s.timeBehindEstimated,
  filesWaiting: s.filesWaiting,
  filesWaitingTrendPerMin: s.filesWaitingTrendPerMin,
  batchDurationMs: s.batchDurationMs,
  triggerMs: s.triggerMs,
  lastProgressAt: s.lastProgressAt,
  openIncidents: s.openIncidents.length,
});

describe('files waiting', () => {
  it('Delta: no time behind, but files waiting with their trend, said plainly everywhere', () => {
    const { tracker, endMs } = track('delta-files-backlog');
    const snapshot = tracker.snapshot();
    expect(snapshot.timeBehindSec).toBeNull();
    expect(snapshot.timeBehindEstimated).toBe(false);
    expect(snapshot.filesWaiting).toBeGreaterThan(1_000);
    // ~200 files more every 30 s batch.
    expect(snapshot.filesWaitingTrendPerMin).toBeGreaterThan(250);
    expect(snapshot.filesWaitingTrendPerMin).toBeLessThan(550);

    const report = tracker.report(endMs);
    const lag = report.incidents.find((i) => i.kind === 'lag')!;
    expect(lag.summary).toMatch(/^Falling behind: [\d.]+K? files waiting at the source \(time behind unknown for this source\), growing \d+ files per minute/);

    const text = renderTextReport({ queries: [report] }, new Map([['q1', snapshot]]));
    expect(text).toMatch(/[\d.]+K? files waiting, \+\d+ per minute \(time behind unknown for this source\)/);

    const fields = metricFields(lag.metrics, endMs);
    expect(fields.some((f) => f.startsWith('*Time behind*'))).toBe(false);
    expect(fields).toContainEqual(expect.stringMatching(/^\*Files waiting\*\n[\d.]+K? files · time behind unknown for this source$/));

    const line = streamLine(view(snapshot), endMs);
    expect(line).toMatch(/[\d.]+K? files waiting, \+\d+ per minute/);
    expect(line).not.toMatch(/behind/);
  });

  it('Auto Loader: time behind estimated from files, and marked as an estimate', () => {
    const { tracker, endMs } = track('autoloader-files-backlog');
    const snapshot = tracker.snapshot();
    expect(snapshot.timeBehindSec).toBeGreaterThan(30);
    expect(snapshot.timeBehindEstimated).toBe(true);
    const text = renderTextReport({ queries: [tracker.report(endMs)] }, new Map([['q1', snapshot]]));
    expect(text).toMatch(/about \d+(m \d+)?s behind \(estimated from [\d.]+K? files waiting\)/);
    const line = streamLine(view(snapshot), endMs);
    expect(line).toMatch(/~\d+(m \d+)?s behind \(est\.\)/);
    const lag = tracker.report(endMs).incidents.find((i) => i.kind === 'lag')!;
    expect(metricFields(lag.metrics, endMs)).toContainEqual(expect.stringMatching(/^\*Time behind\*\n\S.* \(estimated from files\)/));
  });

  it('Kafka snapshots carry no files', () => {
    const { tracker } = track('healthy-near-capacity');
    expect(tracker.snapshot()).toMatchObject({ filesWaiting: null, filesWaitingTrendPerMin: null, timeBehindEstimated: false });
  });
});
