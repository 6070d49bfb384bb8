import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // checks every cassette entry the suites record against the published JSON Schema
    setupFiles: ['test/setup/entry-audit.ts'],
    // the JSON report feeds the "N passed, N failed" line printed by .ci/run
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
