import { defineConfig } from 'vitest/config';

/**
 * No test may depend on how fast this machine is (a busy 2-core machine runs every process ten
 * times slower): the timeouts here only catch a test that hangs, never one that is slow. Waits
 * inside tests are bounded by what they wait for (the product's own timeouts, a process exit).
 */
const HANG_GUARD_MS = 5 * 60_000;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The release tests run against the packed tarball: vitest.release.config.ts, after the suite.
    exclude: ['test/release/**', '**/node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    // Tests spawn real servers and CLI processes; two workers match this 2-core machine.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: HANG_GUARD_MS,
    hookTimeout: HANG_GUARD_MS,
    // In CI, also a machine-readable record, from which .ci/run prints its closing tally.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.tmp/vitest-results.json' }]] : ['default'],
  },
});
