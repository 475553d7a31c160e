/**
 * Notify and digest jobs whose data has another shape (a producer's bug, a job added by hand) fail
 * once, naming the job and the field, instead of a TypeError retried 10 to 20 times. Real workers
 * (the production wiring), real Redis, the local Slack.
 */
import { describe, expect, it } from 'vitest';
import { notifyWorkerPerTest, waitFor } from '../pipeline/helpers/harness.js';

const worker = notifyWorkerPerTest();

const cases: [string, 'notify' | 'digest', string, unknown, string][] = [
  ['notify {}', 'notify', 'incident', {}, 'kind'],
  ['notify incident without incidentId', 'notify', 'incident', { kind: 'incident', version: 1, change: 'opened', committedAt: 1 }, 'incidentId'],
  ['notify refresh with a numeric incidentId', 'notify', 'refresh', { kind: 'refresh', incidentId: 42, committedAt: 1 }, 'incidentId'],
  ['notify group without groupId', 'notify', 'group', { kind: 'group', channel: 'C0DATAALRT', committedAt: 1 }, 'groupId'],
  ['digest {}', 'digest', 'channel', {}, 'kind'],
  ['digest channel without channel', 'digest', 'channel', { kind: 'channel', day: '2026-01-01' }, 'channel'],
];

describe('job data of the wrong shape', () => {
  it('fails at once, naming the job and the field', async () => {
    const { runtime: rt } = await worker.start('job-data');
    const added = [];
    for (const [label, queue, name, data, field] of cases) {
      const jobId = `bad-${label.replace(/[^a-z]+/gi, '-')}`;
      await (rt.queues[queue] as unknown as { add: (n: string, d: unknown, o: unknown) => Promise<unknown> }).add(name, data, { jobId });
      added.push({ queue, jobId, field });
    }
    for (const { queue, jobId, field } of added) {
      const job = await waitFor(async () => {
        const found = await rt.queues[queue].getJob(jobId);
        return found && (await found.getState()) === 'failed' ? found : null;
      }, `${jobId} failed`, 10_000);
      expect(job.attemptsMade).toBe(1);
      expect(job.failedReason).toContain(`streamdoctor_${queue}_bad_job_data: ${queue} job ${jobId}`);
      expect(job.failedReason).toContain(`field "${field}"`);
    }
  });
});
