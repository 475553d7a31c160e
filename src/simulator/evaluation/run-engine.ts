/**
 * Feeds a labelled scenario through the real pipeline a user's data takes: every report's JSON text
 * is parsed by `parseProgress`, fed to a `QueryTracker` in order (ticked at each report's end, then
 * every minute up to the scenario's `now`), and also run through `diagnose` for the final report.
 */

import { diagnose } from '../../diagnosis/engine.js';
import { QueryTracker } from '../../diagnosis/query-tracker.js';
import type { DiagnoseOutput, IncidentChange } from '../../diagnosis/types.js';
import { parseProgress } from '../../progress/parse-progress.js';
import type { Progress } from '../../progress/types.js';
import type { LabelledRun } from '../scenario.js';
import { StaticBacklogRule } from './static-backlog-rule.js';

export interface TimedChange {
  /** Report index after which the change was emitted (= number of reports for ticks after the last). */
  index: number;
  atMs: number;
  change: IncidentChange;
}

export interface EngineRun {
  changes: TimedChange[];
  /** `diagnose` over the whole parsed history, judged at the scenario's `now`. */
  output: DiagnoseOutput;
  /** Reports the parser rejected, with its message (should be none). */
  parseErrors: { index: number; error: string }[];
  /** First report index at which the static 600 s rule fires; null when it never does. */
  staticRuleIndex: number | null;
  parsed: Progress[];
}

const TICK_STEP_MS = 60_000;
const MAX_TICKS = 1_000;

export function runEngine(run: LabelledRun): EngineRun {
  const options = { ...run.scenario.engine };
  const changes: TimedChange[] = [];
  const parseErrors: { index: number; error: string }[] = [];
  const parsed: Progress[] = [];
  const rule = new StaticBacklogRule();
  let staticRuleIndex: number | null = null;
  let tracker: QueryTracker | null = null;
  run.batches.forEach((batch, index) => {
    const result = parseProgress(JSON.parse(batch.json));
    if (!result.ok) {
      parseErrors.push({ index, error: result.error });
      return;
    }
    const p = result.progress;
    parsed.push(p);
    tracker ??= QueryTracker.create(p.id, p.name, options);
    for (const change of tracker.observe(p)) changes.push({ index, atMs: batch.endMs, change });
    for (const change of tracker.tick(batch.endMs)) changes.push({ index, atMs: batch.endMs, change });
    if (staticRuleIndex === null && rule.observe(p)) staticRuleIndex = index;
  });
  const lastEnd = run.batches[run.batches.length - 1]?.endMs ?? run.scenario.startMs;
  if (tracker && run.nowMs > lastEnd) {
    const t = tracker as QueryTracker;
    for (let i = 1, at = lastEnd + TICK_STEP_MS; i <= MAX_TICKS; i++, at += TICK_STEP_MS) {
      const now = Math.min(at, run.nowMs);
      for (const change of t.tick(now)) changes.push({ index: run.batches.length, atMs: now, change });
      if (now >= run.nowMs) break;
    }
  }
  const output = diagnose(parsed, { ...options, nowMs: run.nowMs });
  return { changes, output, parseErrors, staticRuleIndex, parsed };
}
