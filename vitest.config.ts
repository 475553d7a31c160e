import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Suites with their own runs: test/cluster/ needs the cluster of `npm run test:cluster`,
    // test/faults/ is the long fault suite of `npm run test:faults` (vitest.faults.config.ts).
    exclude: ['**/node_modules/**', 'test/cluster/**', 'test/faults/**'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // bin/streamdoctor.mjs runs dist/: rebuilt here when a source is newer.
    globalSetup: ['./test/helpers/build-dist.ts'],
    // Integration tests share one Redis and bind loopback ports; files run one at a time.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
