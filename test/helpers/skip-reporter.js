/**
 * A jest reporter: lists every skipped test at the end of the run, one line each (the platform-specific
 * tests name why in their title), and fails the run when anything was skipped where skipping is not
 * allowed: with CI set (.ci/run on Linux x64, which has every platform-specific helper).
 */
class SkipReporter {
  constructor() {
    this.error = undefined;
  }

  onRunComplete(_contexts, results) {
    const skipped = results.testResults.flatMap((file) =>
      file.testResults
        .filter((test) => test.status === 'pending' || test.status === 'skipped' || test.status === 'todo')
        .map((test) => test.fullName),
    );
    if (skipped.length === 0) return;
    // One line per reason: a platform-specific describe says why in its title ("… [skipped: why]").
    const counts = new Map();
    for (const name of skipped) {
      const why = /^(.*?\[skipped: [^\]]*\])/.exec(name);
      const line = why ? why[1] : name;
      counts.set(line, (counts.get(line) ?? 0) + 1);
    }
    const lines = [...counts].map(([line, n]) => `  skipped ${n}: ${line}`);
    process.stderr.write(`\n${skipped.length} test(s) skipped:\n${lines.join('\n')}\n`);
    if (process.env.CI) this.error = new Error(`${skipped.length} test(s) skipped; CI runs every test`);
  }

  getLastError() {
    return this.error;
  }
}

module.exports = SkipReporter;
