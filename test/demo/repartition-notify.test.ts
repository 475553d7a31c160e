/**
 * The demo's repartition story, end to end through notify: a slow state repartition is reported by
 * the batch that ends it, so one detect run often sees it open and resolve (a poll brings that batch
 * and the recovered ones together). It must still reach Slack; a lag episode that opened and
 * resolved unseen stays quiet, as before.
 */
import { describe, expect, it } from 'vitest';
import { QueryTracker } from '../../src/diagnosis/query-tracker.js';
import type { IncidentChange } from '../../src/diagnosis/types.js';
import { DEMO_STREAMS } from '../../src/demo/demo-streams.js';
import { parseProgress } from '../../src/progress/parse-progress.js';
import type { WorkerRuntime } from '../../src/runtime/pipeline-runtime.js';
import { StreamSimulator } from '../../src/simulator/index.js';
import type { LocalSlack } from '../../src/standins/slack/index.js';
import { commitAndDrain, notifyWorkerPerTest, waitFor } from '../pipeline/helpers/harness.js';

const START = Date.UTC(2026, 10, 29, 20, 0, 0);
const worker = notifyWorkerPerTest();
let runtime: WorkerRuntime | undefined;
let slack: LocalSlack | undefined;

/** Every incident change of one demo stream over `minutes` of simulated time, through the real engine. */
function engineChanges(story: string, minutes: number): IncidentChange[] {
  const stream = DEMO_STREAMS.find((s) => s.story === story)!;
  const spec = stream.spec(START);
  const sim = new StreamSimulator(spec, { startMs: START, seed: stream.seed });
  const tracker = QueryTracker.create(stream.queryId, stream.name, { triggerMs: spec.triggerMs, cores: spec.processing.cores });
  const changes: IncidentChange[] = [];
  for (let i = 0; i < 500; i++) {
    const batch = sim.next();
    if (batch.endMs > START + minutes * 60_000) break;
    const parsed = parseProgress(JSON.parse(batch.json));
    if (parsed.ok) changes.push(...tracker.observe(parsed.progress));
  }
  return changes;
}

async function start(): Promise<WorkerRuntime> {
  ({ runtime, slack } = await worker.start('demo-notify'));
  return runtime;
}

/** Commits the changes as one detect run would, then hands them to notify. */
async function commitTogether(rt: WorkerRuntime, queryId: string, name: string, changes: IncidentChange[]): Promise<void> {
  await rt.store.streams.upsert({ queryId, name });
  await commitAndDrain(rt, queryId, changes, { health: 'ok', name });
}

describe('notify, for incidents that open and resolve in one detect run', () => {
  it('posts a slow repartition anyway, with its resolve reply', async () => {
    const changes = engineChanges('slow_repartition', 30).filter((c) => c.incident.kind === 'slow_repartition');
    expect(changes.map((c) => c.type)).toEqual(['opened', 'resolved']);
    const rt = await start();
    const stream = DEMO_STREAMS.find((s) => s.story === 'slow_repartition')!;
    await commitTogether(rt, stream.queryId, stream.name, changes);
    const message = await waitFor(() => slack!.messages('C0DATAALRT').find((m) => /repartition/i.test(m.text)), 'the repartition alert');
    expect(message.text).toMatch(/inventory_by_store/);
    expect(message.text).toMatch(/11m 31s/);
    await waitFor(() => slack!.thread('C0DATAALRT', message.ts).length >= 2, 'the resolve reply');
  });

  it('still keeps a lag episode that opened and resolved unseen out of the channel', async () => {
    const rt = await start();
    const incident = engineChanges('lag', 20).find((c) => c.type === 'opened' && c.incident.kind === 'lag')!.incident;
    const resolved = { ...incident, resolvedAt: new Date(START + 20 * 60_000).toISOString(), resolvedAtBatchId: 40 };
    const stream = DEMO_STREAMS.find((s) => s.story === 'lag')!;
    const base = { queryId: stream.queryId, queryName: stream.name };
    await commitTogether(rt, stream.queryId, stream.name, [
      { type: 'opened', ...base, incident },
      { type: 'resolved', ...base, incident: resolved },
    ]);
    await waitFor(async () => {
      const counts = await rt.queues.notify.getJobCounts('completed', 'waiting', 'active', 'delayed');
      return counts.completed! >= 1 && counts.waiting === 0 && counts.active === 0 && counts.delayed === 0;
    }, 'notify to finish');
    expect(slack!.messages('C0DATAALRT')).toEqual([]);
  });
});
