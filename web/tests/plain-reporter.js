// Prints one plain "web: N passed, N failed" line at the end of a Vitest run (the CI harness
// does not read Vitest's own summary; the exit code stays Vitest's).
export default class PlainReporter {
  constructor(options = {}) { this.suite = options.suite || 'web'; this.passed = 0; this.failed = 0; this.skipped = 0; }
  onTestCaseResult(testCase) {
    const state = testCase.result().state;
    if (state === 'passed') this.passed++;
    else if (state === 'failed') this.failed++;
    else this.skipped++;
  }
  onTestRunEnd(testModules, unhandledErrors) {
    const failed = this.failed + (unhandledErrors ? unhandledErrors.length : 0);
    const tag = this.suite;
    console.log(`\n${tag}: ${this.passed} passed, ${failed} failed${this.skipped ? `, ${this.skipped} skipped` : ''}`);
  }
}
