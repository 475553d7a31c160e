/**
 * Detect job data of the wrong shape cannot succeed on a retry: the processor refuses it at once
 * (BullMQ's UnrecoverableError, no further attempts), naming the field.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { beforeEach, expect, it } from 'vitest';
import { createDetectProcessor } from '../../jobs/detect-processor.js';
import { engineTrackers } from '../../jobs/engine-trackers.js';
import { PipelineQueues } from '../../jobs/queues.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { RedisStore } from '../../src/store/index.js';
import { storeAndQueuesPerTest } from '../helpers/store-and-queues.js';
import { silentLogger } from '../pipeline/helpers/harness.js';

const fresh = storeAndQueuesPerTest('detect-job-data');
let store: RedisStore;
let queues: PipelineQueues;
beforeEach(() => ({ store, queues } = fresh));

it.each([
  ['{}', {}, 'queryId'],
  ['null', null, '(root)'],
  ['a numeric queryId', { queryId: 7 }, 'queryId'],
  ['queryIds that is no list', { queryId: 'x', queryIds: 'abc' }, 'queryIds'],
  ['a query id in queryIds that is no string', { queryId: 'x', queryIds: ['x', 3] }, 'queryIds.1'],
  ['a negative shard', { queryId: 'x', shard: -1 }, 'shard'],
  ['tick that is no boolean', { queryId: 'x', tick: 'yes' }, 'tick'],
])('job data %s is refused as unrecoverable, naming the field', async (_what, data, field) => {
  const detect = createDetectProcessor({ store, queues, trackers: engineTrackers(), metrics: createMetrics({ processMetrics: false }), logger: silentLogger });
  const run = detect({ data } as Job<never>);
  await expect(run).rejects.toBeInstanceOf(UnrecoverableError);
  await expect(run).rejects.toThrow(`job data field "${field}" is invalid`);
  await expect(run).rejects.toThrow(/^streamdoctor_detect_bad_job_data: detect job/);
});

it('the shapes producers send still run', async () => {
  const detect = createDetectProcessor({ store, queues, trackers: engineTrackers(), metrics: createMetrics({ processMetrics: false }), logger: silentLogger });
  for (const data of [{ queryId: 'q1' }, { queryId: 'q1', queryIds: ['q1', 'q2'], tick: true }, { queryId: 'q1', shard: 3 }, { queryIds: ['q1'] }]) {
    await expect(detect({ data } as Job<never>)).resolves.toMatchObject({ observed: 0 });
  }
});
