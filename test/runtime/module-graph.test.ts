/**
 * `import 'mcp-contract-guard/runtime'` must stay light: it goes into every production server.
 * A child node process imports the compiled runtime with a resolve hook that logs every module
 * URL, and reports the CommonJS cache too; nothing from the CLI's dependency tree may appear.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleLog, type ModuleLog } from '../helpers/module-log.js';

const repo = resolve(import.meta.dirname, '../..');
const FORBIDDEN = [/\/node_modules\/@actions\//, /\/node_modules\/@octokit\//, /octokit/i, /\/node_modules\/json-schema-diff\//, /\/node_modules\/diff\//];

let work: string;
let builtEntry: string;
let probe: ModuleLog;

beforeAll(async () => {
  mkdirSync(join(repo, '.tmp'), { recursive: true });
  // Inside the repo so the build resolves the project's node_modules like the real lib/ does.
  work = mkdtempSync(join(repo, '.tmp', 'module-graph-'));
  const tsconfig = join(work, 'tsconfig.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(repo, 'tsconfig.json'),
      compilerOptions: { noEmit: false, declaration: false, rootDir: join(repo, 'src'), outDir: join(work, 'lib') },
      files: [join(repo, 'src/runtime/index.ts')],
      include: [],
    }),
  );
  // Only the runtime and what it imports are compiled, so others' work in progress cannot break this.
  // Asynchronously: a compile that takes a minute on a busy machine must not stall the test worker.
  await promisify(execFile)(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], { cwd: repo });
  builtEntry = join(work, 'lib/runtime/index.js');
  probe = moduleLog(work);
});

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** Every module URL (ESM) and CommonJS file a fresh node process loads for `import(specifier)`. */
function modulesLoadedBy(specifier: string): { esm: string[]; cjs: string[]; exports: string[] } {
  const script = `
    const mod = await import(process.env.TARGET);
    const { createRequire } = await import('node:module');
    const cache = createRequire(process.cwd() + '/').cache;
    process.stdout.write(JSON.stringify({ cjs: Object.keys(cache), exports: Object.keys(mod).sort() }));
  `;
  let stdout = '';
  const esm = probe.record((env) => {
    stdout = execFileSync(process.execPath, [...probe.nodeArgs, '--input-type=module', '-e', script], { cwd: repo, env: { ...env, TARGET: specifier }, encoding: 'utf8' });
  });
  const { cjs, exports } = JSON.parse(stdout) as { cjs: string[]; exports: string[] };
  return { esm, cjs, exports };
}

describe('the runtime module graph', () => {
  it('the probe sees what it should: importing @actions/core is detected', () => {
    const { esm, cjs } = modulesLoadedBy('@actions/core');
    expect([...esm, ...cjs].some((url) => FORBIDDEN.some((pattern) => pattern.test(url)))).toBe(true);
  });

  it('a fresh build of src/runtime loads no @actions/*, Octokit, json-schema-diff or diff, and nothing from node_modules at all', () => {
    const { esm, cjs, exports } = modulesLoadedBy(pathToFileURL(builtEntry).href);
    expect(esm.some((url) => url.endsWith('/runtime/index.js'))).toBe(true);
    expect(exports).toContain('withSelfHealing');
    for (const url of [...esm, ...cjs]) for (const pattern of FORBIDDEN) expect(url).not.toMatch(pattern);
    // Stronger than asked: not even the MCP SDK, zod or ajv are loaded on import.
    expect([...esm, ...cjs].filter((url) => url.includes('node_modules'))).toEqual([]);
    // Of our own code outside the runtime folder, only the protocol: the format it shares with
    // the CI side (types, reader, order, XML, the union definition). Nothing of diff/, report/,
    // github/, compile/, cli/ or contract/.
    const shared = [...new Set(esm)]
      .filter((url) => url.startsWith('file:') && url.includes('/lib/') && !url.includes('/lib/runtime/'))
      .map((url) => url.slice(url.lastIndexOf('/lib/') + 5))
      .sort();
    expect(shared.every((path) => path.startsWith('protocol/')), shared.join(', ')).toBe(true);
    expect(shared).toContain('protocol/index.js');
  });

  it("the package export 'mcp-contract-guard/runtime' (lib/bundle/, after npm run build) does the same", () => {
    const { esm, cjs } = modulesLoadedBy('mcp-contract-guard/runtime');
    expect(esm.some((url) => url.endsWith('/lib/bundle/runtime.js'))).toBe(true);
    for (const url of [...esm, ...cjs]) for (const pattern of FORBIDDEN) expect(url).not.toMatch(pattern);
    expect([...esm, ...cjs].filter((url) => url.includes('node_modules'))).toEqual([]);
    // The protocol's formats the runtime never reads are left out of its bundle: the review
    // file's and the capture file's readers and forms (built on use, so a bundler can drop
    // them), the checks they are built of, their vocabularies.
    const bundled = readFileSync(join(repo, 'lib/bundle/runtime.js'), 'utf8');
    for (const name of ['readReviewFile', 'REVIEW_FILE_CAPS', 'reviewFileForm', 'REVIEW_VERDICTS', 'FAIL_ON', 'readCaptureFile', 'CAPTURE_FILE_CAPS', 'captureFileForm', 'COMMAND_FILES', 'formChecks']) {
      expect(bundled).not.toContain(name);
    }
    // Nor the names of those checks: esbuild renames a local that shares one (text2, list2).
    expect(bundled).not.toMatch(/\b(text|list|record|oneOf|optional)2\b/);
  });
});
