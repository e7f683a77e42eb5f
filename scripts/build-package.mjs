// Bundle what the npm package runs into lib/bundle/, from the compiled lib/ (`tsc` first; `npm
// run build` does both): the CLI (the package's bin), the library (`mcp-contract-guard`), the
// runtime (`mcp-contract-guard/runtime`) and the semantic cross-check's worker thread.
//
// Why: loading dominates a short command. Node's module loader spends some 0.3 ms of CPU per
// file on finding, reading and linking it, whatever its size (more than it spends compiling a
// 40 kB file), and each dynamic import is one more round of that before the code runs. So the
// CLI is laid out by who loads each module, not by where each dynamic import happens to point:
//   front   what every run of the bin loads: the process wrapper, the argument parser, the
//           command table, the help (the proxy loads it too, and parses none of it);
//   engine  the commands that read files (diff, check, lock, compile) and the report formats
//           they print by default, as one file;
//   engine_proxy, engine_pin…  what those share with the proxy and with the pinning proxy, in
//           chunks of their own, so the proxy loads none of the commands' code (and a proxy
//           without a pin none of the diff engine).
// `diff` then loads 5 files instead of 31, `--help` 2 instead of 11, the proxy 11 instead of 19.
// What a command may not need stays behind its dynamic import, in chunks of its own: the config
// file's reader (zod), the markdown report (diff), the server pipeline, pin, changelog, usage.
//
// The chunks are CommonJS (.cjs), the sources ES modules. On Node 20, a program whose first
// module is an ES module pays for the ES loader (its resolver, its async file reader, which
// drags node:fs/promises, readline and the fs watchers) and, for each built-in it imports, for
// an ES facade that reads every export of the built-in once, lazy ones included: `import
// { existsSync } from 'node:fs'` loads the whole stream stack (fs.ReadStream), node:util the
// argument parser's and MIME modules, node:crypto WebCrypto. require() reads none of them.
// Measured (one alternated run, 21 rounds, CPU medians): `--help` 36.8 → 31.5 ms, the release
// diff of bench/startup.mjs 99.6 → 80.5 ms, the output byte for byte the same. A dynamic import
// between chunks becomes a require() a tick later; import.meta.url the chunk's file URL. The
// library's entry stays an ES module for its importers: index.js re-exports index.cjs, whose
// exports Node finds by reading it (cjs-module-lexer reads rollup's `exports.name = …`).
//
// Rollup lays the chunks out (its manualChunks is the one well-kept bundler option that groups
// modules by a rule; esbuild's splitting makes a chunk for every combination of dynamic imports
// that reaches a module); esbuild prints each chunk without the sources' comments. Nothing is
// minified: a stack trace under --debug names the functions of the sources. Dependencies stay
// external (installed beside the package, as declared in package.json; each has a CommonJS
// build). The worker is bundled on its own, an ES module beside the chunks (it shares no code
// with them): semantic.ts finds it next to itself (`new URL('./semantic-worker.js',
// import.meta.url)`), so the output is one flat folder.
//   node scripts/build-package.mjs [--quiet]
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';
import { rollup } from 'rollup';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'lib/bundle');
const lib = (path) => join(root, 'lib', path);

/** Output name → compiled entry module, bundled as CommonJS (name.cjs). The package.json `bin` and `exports` name the outputs. */
export const ENTRIES = {
  cli: 'lib/cli.js',
  index: 'lib/index.js',
};

/**
 * Who loads what, by the modules each starts from: a module goes into the chunk named after the
 * set of these that reach it through static imports, except that whatever the front reaches is
 * in the front. The front is what the bin loads before it knows the command (and the version, a
 * line); the engine, the commands that read files and the report formats they print without a
 * flag; the proxy, what any proxy session loads; its pin, what a pinning one adds. Modules none
 * of them reaches statically (what a command imports only when it needs it, the proxy's own
 * parts) are laid out by rollup's default: a chunk per set of dynamic imports.
 */
const CONSUMERS = {
  front: ['cli/process.js', 'cli/main.js', 'version.js'],
  engine: ['cli/diff-command.js', 'cli/check-command.js', 'cli/lock-command.js', 'cli/compile-command.js', 'report/text.js', 'report/artifact.js'],
  proxy: ['proxy/index.js', 'proxy/relay.js', 'runtime/routing.js', 'proxy/stdio.js'],
  pin: ['proxy/pin-settings.js'],
};

/** Every module `roots` reach through static imports. */
function staticClosure(roots, getModuleInfo) {
  const seen = new Set();
  const stack = roots.map(lib);
  for (const id of stack) if (getModuleInfo(id) === null) throw new Error(`build-package.mjs: ${id} is not in the bundle's module graph (renamed? update CONSUMERS)`);
  while (stack.length > 0) {
    const id = stack.pop();
    const info = getModuleInfo(id);
    if (seen.has(id) || info === null) continue;
    if (!info.isExternal) {
      seen.add(id);
      stack.push(...info.importedIds);
    }
  }
  return seen;
}

let closures;
/** The chunk of a module: 'front', or the consumers that reach it joined ('engine', 'engine_proxy_pin'…), or rollup's choice. */
function chunkOf(id, { getModuleInfo }) {
  closures ??= Object.entries(CONSUMERS).map(([name, roots]) => [name, staticClosure(roots, getModuleInfo)]);
  const names = closures.filter(([, modules]) => modules.has(id)).map(([name]) => name);
  // What every run of the bin loads is one chunk, whoever else needs it.
  if (names.includes('front')) return 'front';
  // The proxy's own modules: its chunks as rollup lays them out.
  if (!names.includes('engine')) return undefined;
  return names.join('_');
}

const isExternal = (id) => id.startsWith('node:') || builtinModules.includes(id) || !(id.startsWith('.') || id.startsWith('/'));
/** The chunk as esbuild prints it: the same code without the comments of lib/ (they weigh a third). */
const withoutComments = { name: 'without-comments', renderChunk: async (code) => ({ code: (await transform(code, { loader: 'js', target: 'node20' })).code, map: null }) };
/** import.meta.url in a chunk: its file's URL (rollup's own rendering also asks a browser's document). */
const chunkUrl = { name: 'chunk-url', resolveImportMeta: (property) => (property === 'url' ? "require('node:url').pathToFileURL(__filename).href" : null) };

/**
 * The runtime is bundled on its own, into one file: a server imports it at start-up, where
 * each file costs Node about half a millisecond to resolve, read and link (one file instead of
 * nine: 10 ms instead of 14). Its code shared with the library and the CLI (the protocol) is
 * then a copy of its own; the runtime exports no class the library exports, so no `instanceof`
 * tells the copies apart. Its one lazy part (the explanations of `withSelfHealing`) is in the
 * same file, evaluated on first use.
 */
const RUNTIME_ENTRY = { runtime: 'lib/runtime/index.js' };
/** The semantic cross-check's worker thread: one file of its own, it imports nothing of the chunks. */
const WORKER_ENTRY = { 'semantic-worker': 'lib/diff/semantic-worker.js' };

rmSync(outdir, { recursive: true, force: true });
async function bundleCliAndLibrary() {
  const bundle = await rollup({
    input: Object.fromEntries(Object.entries(ENTRIES).map(([name, path]) => [name, join(root, path)])),
    external: isExternal,
    onwarn: (warning, warn) => {
      // The sources' import cycles are ES modules' to resolve, as they are in lib/.
      if (warning.code !== 'CIRCULAR_DEPENDENCY') warn(warning);
    },
  });
  // No transitive imports hoisted into a chunk (ES modules' way of fetching ahead, which
  // require() has no use for), and a dynamic import of a built-in or a dependency made a
  // require() too: a real import() would start the ES loader and its facades.
  await bundle.write({ dir: outdir, format: 'cjs', hoistTransitiveImports: false, dynamicImportInCjs: false, entryFileNames: '[name].cjs', chunkFileNames: '[name]-[hash].cjs', manualChunks: chunkOf, plugins: [withoutComments, chunkUrl] });
  await bundle.close();
  // The library's entry, as its importers expect it: an ES module (package.json `exports`).
  writeFileSync(join(outdir, 'index.js'), "export * from './index.cjs';\n");
}
const single = (entryPoints) => build({ absWorkingDir: root, outdir, entryPoints, bundle: true, format: 'esm', platform: 'node', target: 'node20', packages: 'external', logLevel: 'warning' });
await Promise.all([bundleCliAndLibrary(), single(RUNTIME_ENTRY), single(WORKER_ENTRY)]);

if (!process.argv.includes('--quiet')) {
  const files = readdirSync(outdir);
  const bytes = files.reduce((sum, file) => sum + statSync(join(outdir, file)).size, 0);
  console.log(`lib/bundle/: ${files.length} files, ${(bytes / 1000).toFixed(0)} kB`);
}
