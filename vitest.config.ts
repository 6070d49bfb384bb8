import { defineConfig } from 'vitest/config';

// Files that must run with nothing beside them: the conformance suite's replayed listen stream has a 1.5 s window
// (sep-2575 notification filter) that another fork on these 2 cores made it miss twice in two clean-clone runs.
const alone = ['test/conformance.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // checks every cassette entry the suites record against the published JSON Schema
    setupFiles: ['test/setup/entry-audit.ts'],
    // the JSON report feeds the "N passed, N failed" line printed by .ci/run
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
    // Two groups, run one after the other: the rest on two forks, then the files in `alone` on one.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: alone,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'alone', include: alone, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
