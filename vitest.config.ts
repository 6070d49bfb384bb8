import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: 1 on a 2-core CI machine. Most files wait on child
    // processes and sockets rather than compute, so two forks overlap those waits.
    maxWorkers: 2,
    // checks every cassette entry the suites record against the published JSON Schema
    setupFiles: ['test/setup/entry-audit.ts'],
    // the JSON report feeds the "N passed, N failed" line printed by .ci/run
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
