/**
 * Ends every run with one plain line, `Tests: N passed, N failed[, N skipped]`, that any CI log
 * reader understands without knowing vitest's own summary format, after one line per failed test
 * with its error (a CI log that only shows the summary must still say why).
 */
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') {
          failed += 1;
          const errors = test.result().errors ?? [];
          const why = errors.map((e) => (e.message ?? String(e)).split('\n').slice(0, 40).join('\n    ')).join('\n    ');
          process.stdout.write(`\nFAILED ${relative(process.cwd(), module.moduleId)}: ${test.fullName}\n    ${why || '(no error message)'}\n`);
        } else skipped += 1;
      }
      // A file that failed to load has no tests but is still a failure.
      if (module.state() === 'failed' && module.children.size === 0) failed += 1;
    }
    failed += unhandledErrors.length;
    const tail = skipped ? `, ${skipped} skipped` : '';
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed${tail}\n`);
  }
}
