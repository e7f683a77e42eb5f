// Bundle what the npm package runs into lib/bundle/, from the compiled lib/ (`tsc` first; `npm
// run build` does both): the CLI (the package's bin), the library (`mcp-contract-guard`), the
// runtime (`mcp-contract-guard/runtime`) and the semantic cross-check's worker thread.
//
// Why: loading dominates a short command. Run from lib/, `diff` of two 20-tool dumps loads 67
// modules, and Node spends more on finding, reading and linking them than on the diff itself.
// Bundled, the same command loads a handful of files. Code splitting keeps each command's code
// apart (a `--help` loads none of the diff engine, `diff` none of the proxy), the entries share
// their common code as chunks, and dependencies stay external (installed beside the package, as
// declared in package.json). The worker is an entry of its own beside the chunks: semantic.ts
// finds it next to itself (`new URL('./semantic-worker.js', import.meta.url)`), so the output is
// one flat folder.
//
// Nothing is minified: a stack trace under --debug names the functions of the sources.
//   node scripts/build-package.mjs [--quiet]
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'lib/bundle');

/** Output name → compiled entry module. The package.json `bin` and `exports` name the outputs. */
export const ENTRIES = {
  cli: 'lib/cli.js',
  index: 'lib/index.js',
  'semantic-worker': 'lib/diff/semantic-worker.js',
};
/**
 * The runtime is bundled on its own, into one file: a server imports it at start-up, where
 * each file costs Node about half a millisecond to resolve, read and link (one file instead of
 * nine: 10 ms instead of 14). Its code shared with the library and the CLI (the protocol) is
 * then a copy of its own; the runtime exports no class the library exports, so no `instanceof`
 * tells the copies apart. Its one lazy part (the explanations of `withSelfHealing`) is in the
 * same file, evaluated on first use.
 */
const RUNTIME_ENTRY = { runtime: 'lib/runtime/index.js' };

const common = {
  absWorkingDir: root,
  outdir,
  bundle: true,
  format: 'esm',
  platform: 'node',
  // package.json's engines.
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
};
rmSync(outdir, { recursive: true, force: true });
await Promise.all([
  build({ ...common, entryPoints: ENTRIES, splitting: true, chunkNames: 'chunk-[hash]' }),
  build({ ...common, entryPoints: RUNTIME_ENTRY }),
]);

if (!process.argv.includes('--quiet')) {
  const files = readdirSync(outdir);
  const bytes = files.reduce((sum, file) => sum + statSync(join(outdir, file)).size, 0);
  console.log(`lib/bundle/: ${files.length} files, ${(bytes / 1000).toFixed(0)} kB`);
}
