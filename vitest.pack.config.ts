import { defineConfig } from 'vitest/config';

// `npm run test:pack`: the pack-and-install smoke test (test/pack), run by .ci/run after `npm test`. Slow (npm pack
// builds, npm install), so it is not part of `npm test`.
export default defineConfig({
  test: {
    include: ['test/pack/**/*.pack.ts'],
    globalSetup: ['test/pack/tarball.setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 480_000,
    pool: 'forks',
    reporters: ['default', ['json', { outputFile: 'test-results/vitest-pack.json' }]],
  },
});
