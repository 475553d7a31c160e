/**
 * Puts realistic incidents in a real Redis store the way the pipeline does: a labelled simulator
 * scenario prints Spark progress JSON, the parser reads it, the engine's QueryTracker finds the
 * incidents, and the store's detect commit records them. Then the alert is posted like notify does.
 */
import type { webApi } from '@slack/bolt';
import { QueryTracker } from '../../../src/diagnosis/query-tracker.js';
import type { IncidentChange } from '../../../src/diagnosis/types.js';
import { parseProgress } from '../../../src/progress/parse-progress.js';
import type { Progress } from '../../../src/progress/types.js';
import { scenarioByName, simulateScenario } from '../../../src/simulator/index.js';
import { renderForRecord } from './render-for-record.js';
import type { SlackDeps } from '../../../src/slack/deps.js';
import { incidentIdOf, type RedisStore } from '../../../src/store/index.js';
import type { IncidentRecord, StreamSnapshot } from '../../../src/store/types.js';

export interface SeededStream {
  queryId: string;
  name: string;
  progress: Progress[];
  /** Raw progress JSON as Spark printed it, one per line. */
  jsonl: string;
  changes: IncidentChange[];
  incidents: IncidentRecord[];
  nowMs: number;
}

export async function seedScenario(
  store: RedisStore,
  scenarioName: string,
  extra: { runPageUrl?: string; jobId?: string; workspace?: string; name?: string; take?: number; commitEvery?: number } = {},
): Promise<SeededStream> {
  const scenario = scenarioByName(scenarioName);
  const batches = simulateScenario(scenario).slice(0, extra.take ?? scenario.batches);
  const progress: Progress[] = [];
  for (const batch of batches) {
    const parsed = parseProgress(JSON.parse(batch.json));
    if (!parsed.ok) throw new Error(`scenario ${scenarioName} printed unparseable progress: ${parsed.error}`);
    progress.push(extra.name ? { ...parsed.progress, name: extra.name } : parsed.progress);
  }
  const first = progress[0]!;
  const tracker = QueryTracker.create(first.id, first.name, scenario.engine);
  const changes: IncidentChange[] = [];
  await store.streams.upsert({ queryId: first.id, name: first.name, runPageUrl: extra.runPageUrl, jobId: extra.jobId, workspace: extra.workspace });
  // Commit in chunks like the detect job does, so the time-behind history has one point per bucket.
  const chunk = extra.commitEvery ?? 10;
  let nowMs = first.timestampMs;
  for (let start = 0; start < progress.length; start += chunk) {
    const slice = progress.slice(start, start + chunk);
    const sliceChanges: IncidentChange[] = [];
    for (const p of slice) sliceChanges.push(...tracker.observe(p));
    changes.push(...sliceChanges);
    const last = slice[slice.length - 1]!;
    nowMs = last.timestampMs + last.batchDurationMs;
    const snap = tracker.snapshot();
    const snapshot: StreamSnapshot = {
      timeBehindSec: snap.timeBehindSec,
      batchDurationMs: snap.batchDurationMs,
      triggerMs: snap.triggerMs,
      stateRows: snap.stateRows,
      health: snap.health,
      lastProgressAt: snap.lastProgressAt ? Date.parse(snap.lastProgressAt) : null,
      lastBatchId: snap.lastBatchId,
    };
    const state = await store.queries.loadForDetect(first.id);
    await store.queries.commitDetect(first.id, {
      expectedVersion: state.stateVersion,
      state: tracker.toState(),
      lastSeq: state.lastSeq,
      snapshot,
      health: snap.health,
      name: first.name,
      lastRunId: last.runId,
      lastBatchId: last.batchId,
      lastObservedAt: nowMs,
      timeBehindSec: snap.timeBehindSec,
      changes: sliceChanges,
      nowMs,
    });
  }
  const ids = [...new Set(changes.map((change) => incidentIdOf(first.id, change.incident)))];
  const incidents = await store.incidents.getMany(ids);
  for (const record of incidents) await store.incidents.index(record);
  return { queryId: first.id, name: first.name ?? first.id, progress, jsonl: batches.map((b) => b.json).join('\n'), changes, incidents, nowMs };
}

/** Posts an incident's alert as the notify job does, and records where it lives. */
export async function postAlert(client: webApi.WebClient, deps: SlackDeps, record: IncidentRecord, channel: string): Promise<{ channel: string; ts: string }> {
  const message = await renderForRecord(deps, record);
  const posted = await client.chat.postMessage({ channel, text: message.text, blocks: message.blocks });
  const ref = { channel, ts: posted.ts as string };
  await deps.store.incidents.setSlackRef(record.id, ref);
  await deps.store.incidents.assignChannel(record, channel, deps.now?.() ?? Date.now());
  return ref;
}
