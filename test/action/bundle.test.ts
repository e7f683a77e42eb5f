/**
 * The Action runs from dist/ on a runner that has no node_modules: its bundles must carry
 * their dependencies. The e2e tests run dist/index.js inside this repository, where a missing
 * dependency would still resolve; this test runs the json-schema-diff worker from a directory
 * with nothing around it.
 */
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.js';

const isolated = mkdtempSync(join(tmpdir(), 'mcg-dist-'));

beforeAll(() => {
  // dist/ was rebuilt from the current sources by the global setup.
  for (const file of ['semantic-worker.js', 'package.json']) copyFileSync(join(ROOT, 'dist', file), join(isolated, file));
});

describe('dist/semantic-worker.js', () => {
  it('runs json-schema-diff with no node_modules in reach', async () => {
    const worker = new Worker(join(isolated, 'semantic-worker.js'));
    try {
      const reply = await new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage({ id: 'p', previous: { type: 'object', properties: { a: { type: 'string' } } }, current: { type: 'object', properties: { a: { type: 'number' } } } });
      });
      expect(reply).toMatchObject({ id: 'p', ok: true, removalsFound: true, additionsFound: true });
    } finally {
      await worker.terminate();
    }
  });
});

// ncc rewrites a path expression it can evaluate at build time, when files on the build machine
// match it, into one relative to the bundle: the same sources then bundle differently from one
// machine to another, and the rewritten path no longer means what the sources say.
describe('dist/ is the sources, whatever surrounds the build', () => {
  it('no path of the sources is rewritten into one relative to the bundle', () => {
    for (const file of ['index.js', 'semantic-worker.js']) {
      const relocated = readFileSync(join(ROOT, 'dist', file), 'utf8').match(/^.*__nccwpck_require__\.ab\s*\+.*$/gm) ?? [];
      expect(relocated, `dist/${file}`).toEqual([]);
    }
  });
});
