/**
 * `npm run test:cluster` (scripts/test-cluster.sh): the store, pipeline and crash/restart tests against a
 * local Redis Cluster (3 masters + 3 replicas), STREAMDOCTOR_TEST_REDIS_URL=redis+cluster://…, then the
 * cluster failover test (a second pass). Every test here gets its Redis from test/helpers/redis.ts.
 */
import { defineConfig } from 'vitest/config';

/** Tests of these folders that cannot run on a cluster, each with the reason (never skipped silently). */
export const NOT_ON_CLUSTER: Record<string, string> = {
  'test/pipeline/redis-restart.test.ts':
    'restarts its own single redis-server process (AOF) on one port; the cluster counterpart is the master failover in test/cluster/failover.test.ts',
};

for (const [file, reason] of Object.entries(NOT_ON_CLUSTER)) process.stdout.write(`== not on the cluster: ${file} (${reason})\n`);

export default defineConfig({
  test: {
    include: ['test/store/**/*.test.ts', 'test/pipeline/**/*.test.ts', 'test/jobs/**/*.test.ts', 'test/cluster/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...Object.keys(NOT_ON_CLUSTER)],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // One cluster for the whole run, files one at a time. scripts/test-cluster.sh runs test/cluster/
    // (the failover, which moves masters) in a second pass after everything else.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
