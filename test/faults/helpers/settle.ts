/** Waits until every incident has its message and notify is idle; on timeout says what is missing. */
import type { PipelineQueues } from '../../../jobs/queues.js';
import type { RedisStore } from '../../../src/store/index.js';
import { waitFor } from '../../pipeline/helpers/harness.js';

export async function settle(rt: { store: RedisStore; queues: PipelineQueues }, incidentIds: string[], timeoutMs = 90_000): Promise<void> {
  try {
    await waitFor(async () => {
      const records = await rt.store.incidents.getMany(incidentIds);
      const d = await rt.queues.depths();
      return records.length === incidentIds.length && records.every((r) => r.slack?.ts) && d.notify!.waiting + d.notify!.active + d.notify!.delayed === 0;
    }, 'every incident posted and notify idle', timeoutMs, 500);
  } catch (err) {
    const records = await rt.store.incidents.getMany(incidentIds);
    const missing = records.filter((r) => !r.slack?.ts).map((r) => `${r.id} v${r.version} notified v${r.notifiedVersion} ${r.state}`);
    const depths = await rt.queues.depths();
    const jobs = await rt.queues.notify.getJobs(['waiting', 'active', 'delayed', 'failed', 'prioritized'], 0, 20);
    const described = await Promise.all(jobs.map(async (j) => `${j.id} ${await j.getState()} attempts ${j.attemptsMade} ${j.failedReason ?? ''}`));
    throw new Error(
      `${(err as Error).message}\n records ${records.length}/${incidentIds.length}; without a message: ${JSON.stringify(missing)}\n notify ${JSON.stringify(depths.notify)}\n jobs: ${described.join('\n   ')}`,
    );
  }
}
