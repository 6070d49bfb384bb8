import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // the JSON report feeds the "N passed, N failed" line printed by .ci/run
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
