import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The release tests run against the packed tarball: vitest.release.config.ts, after the suite.
    exclude: ['test/release/**', '**/node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    // Tests spawn real servers and CLI processes; two workers match this 2-core machine.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 30_000,
    // In CI, also a machine-readable record, from which .ci/run prints its closing tally.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.tmp/vitest-results.json' }]] : ['default'],
    hookTimeout: 30_000,
  },
});
