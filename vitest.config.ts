import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One fork on 2 cores (vitest's default). Two forks cut the run from ~750 s to 335 s, but beside another file the
    // conformance suite's replayed listen stream lost a check with a 1.5 s window (sep-2575 notification filter),
    // twice in two clean-clone runs: more workers wait until that file runs alone (issue 34, item 7).
    // checks every cassette entry the suites record against the published JSON Schema
    setupFiles: ['test/setup/entry-audit.ts'],
    // the JSON report feeds the "N passed, N failed" line printed by .ci/run
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
