/**
 * Ends every run with one plain line, `Tests: N passed, N failed[, N skipped]`, that any CI log
 * reader understands without knowing vitest's own summary format, after one line per failed test
 * or failed suite (a hook that threw, a file that did not load) with its error (a CI log that only
 * shows the summary must still say why).
 */
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** One failure, its errors' first 40 lines each. */
function writeFailure(module: TestModule, name: string, errors: ReadonlyArray<{ message?: string }>): void {
  const why = errors.map((e) => (e.message ?? String(e)).split('\n').slice(0, 40).join('\n    ')).join('\n    ');
  process.stdout.write(`\nFAILED ${relative(process.cwd(), module.moduleId)}: ${name}\n    ${why || '(no error message)'}\n`);
}

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
          writeFailure(module, test.fullName, test.result().errors ?? []);
        } else skipped += 1;
      }
      // A suite whose hook failed (a beforeAll that throws) leaves its tests skipped: the failure is
      // the suite's, and a file that failed to load has no tests at all. Each counts once.
      for (const suite of [module, ...module.children.allSuites()]) {
        const errors = suite.errors();
        if (errors.length === 0 && !(suite === module && module.state() === 'failed' && module.children.size === 0)) continue;
        failed += 1;
        writeFailure(module, suite.type === 'suite' ? suite.fullName : '(file)', errors);
      }
    }
    failed += unhandledErrors.length;
    const tail = skipped ? `, ${skipped} skipped` : '';
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed${tail}\n`);
  }
}
