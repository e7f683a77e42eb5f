// Bundle the GitHub Action into dist/ (committed; `runs.main` is dist/index.js). Two bundles:
// the Action itself, and the semantic cross-check's worker thread, which loads json-schema-diff
// and must be a file of its own beside index.js (a runner has no node_modules).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const ncc = require('@vercel/ncc');

// --bundle-only: lib/ is known to be fresh (the test suite builds it once for every test).
if (!process.argv.includes('--bundle-only')) {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
}

const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist);

const bundles = [
  { entry: 'lib/action.js', out: 'index.js', license: 'licenses.txt' },
  { entry: 'lib/diff/semantic-worker.js', out: 'semantic-worker.js', license: 'semantic-worker.licenses.txt' },
];
for (const bundle of bundles) {
  const { code, assets } = await ncc(join(root, bundle.entry), { quiet: true, license: bundle.license, minify: false, sourceMap: false });
  assertNoRelocatedPaths(bundle.out, code);
  writeFileSync(join(dist, bundle.out), code);
  for (const [name, asset] of Object.entries(assets ?? {})) {
    // ncc emits a package.json marking the output as ESM; one copy serves both bundles.
    const target = join(dist, name);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, asset.source);
  }
}
if (!process.argv.includes('--quiet')) console.log(`dist/: ${readdirSync(dist).sort().join(', ')}`);

/**
 * ncc's asset relocator rewrites a path expression it can evaluate at build time into one
 * relative to the bundle (`__nccwpck_require__.ab + "…"`) when files on the build machine match
 * it, so the same sources could bundle differently from one machine (or one checkout's
 * neighbours) to another: `resolve(cwd ?? '.', 'node_modules', '.bin', program)` once became a
 * string concatenation that no longer looked in the server's folder. The Action reads no file of
 * its own beside the bundle, so any such rewrite is a bug in the sources: fail the build.
 */
function assertNoRelocatedPaths(name, code) {
  const at = code.search(/__nccwpck_require__\.ab\s*\+/);
  if (at === -1) return;
  const line = code.slice(0, at).split('\n').length;
  throw new Error(`build-action.mjs: ncc rewrote a path of the sources into one relative to dist/${name} (line ${line}: ${code.slice(at, at + 120).split('\n')[0]}). Build that path so ncc cannot evaluate it (see src/compile/diagnose.ts projectBinary).`);
}
