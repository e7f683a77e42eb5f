import { defineConfig } from 'vitest/config';

/**
 * The release tests (`npm run test:release`, run by .ci/run after the suite): the packed
 * tarball, served by a registry stand-in, runs the commands the product and its docs print. One
 * file at a time: they share npm's cache, and each installs packages.
 */
export default defineConfig({
  test: {
    include: ['test/release/**/*.test.ts'],
    globalSetup: ['test/release/setup.ts'],
    pool: 'forks',
    fileParallelism: false,
    // A bound on a hang, not a performance goal: a test here installs packages with npm.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.tmp/vitest-release-results.json' }]] : ['default'],
  },
});
