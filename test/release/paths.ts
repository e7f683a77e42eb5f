/** Where the release tests work (no vitest here: the global setup imports it too). */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
/** Scratch space of the release tests: gitignored, beside the checkout. */
export const WORK = join(ROOT, '.tmp', 'release');

/** Prepares the cache and the (empty) user config of the stranger's npm; run once per test run. */
export function prepareNpmHome(): { npmCache: string; npmUserConfig: string } {
  const npmCache = join(WORK, 'npm-cache');
  const npmUserConfig = join(WORK, 'npmrc');
  mkdirSync(npmCache, { recursive: true });
  // npx keeps what it installed under the cache's _npx, keyed by the package spec: never reuse it.
  rmSync(join(npmCache, '_npx'), { recursive: true, force: true });
  writeFileSync(npmUserConfig, '');
  return { npmCache, npmUserConfig };
}

