/**
 * A fresh store and queue set for each test of a file: their own prefix, removed after the test;
 * the file's Redis client is closed after the file. Read `store` and `queues` inside tests and hooks
 * (they are replaced before each test).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { PipelineQueues } from '../../jobs/queues.js';
import { RedisStore, type RedisStoreOptions } from '../../src/store/index.js';
import { testRedis } from './redis.js';

export function storeAndQueuesPerTest(tag: string, storeOptions: Omit<RedisStoreOptions, 'redis' | 'prefix'> = {}) {
  const redis = testRedis();
  let store: RedisStore | undefined;
  let queues: PipelineQueues | undefined;
  beforeEach(() => {
    const prefix = `sdtest-${tag}-${randomUUID().slice(0, 8)}`;
    store = new RedisStore({ redis, prefix, ...storeOptions });
    queues = new PipelineQueues({ connection: redis, prefix: `{${prefix}}` });
  });
  afterEach(async () => {
    await queues?.obliterate();
    await queues?.close();
    await store?.deleteEverything();
  });
  afterAll(() => redis.disconnect());
  return {
    redis,
    get store(): RedisStore {
      return store!;
    },
    get queues(): PipelineQueues {
      return queues!;
    },
  };
}
