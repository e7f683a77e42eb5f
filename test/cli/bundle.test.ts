/**
 * The package runs its bundle (lib/bundle/, scripts/build-package.mjs), not lib/: the same
 * commands must say the same bytes through both, the semantic cross-check's worker thread must
 * run from the bundle, where Node has a compile cache the bin must use it, and each command loads
 * the few files the bundle's layout gives it (each file costs Node's loader more than its size).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleLog, type ModuleLog } from '../helpers/module-log.js';
import { PACKAGE_BIN as BIN, ROOT } from '../helpers/processes.js';

const LIB = resolve(ROOT, 'lib/cli.js');
const realWorld = (name: string) => resolve(ROOT, 'test/fixtures/real-world', name);

let work: string;
let probe: ModuleLog;

/** A folder with the inputs the commands below read. */
function folder(dir: string): string {
  mkdirSync(dir, { recursive: true });
  // Only json-schema-diff can settle this pair: one string variant now covers two.
  const variants = (anyOf: object[]) => ({ tools: [{ name: 'lookup', inputSchema: { type: 'object', properties: { name: { anyOf } } } }] });
  writeFileSync(join(dir, 'variants-old.json'), JSON.stringify(variants([{ type: 'string', maxLength: 5 }, { type: 'string', minLength: 1 }])));
  writeFileSync(join(dir, 'variants-new.json'), JSON.stringify(variants([{ type: 'string' }])));
  writeFileSync(join(dir, 'one.json'), JSON.stringify({ tools: [{ name: 'a', inputSchema: { type: 'object' } }] }));
  return dir;
}

beforeAll(() => {
  work = folder(mkdtempSync(join(tmpdir(), 'mcg-bundle-')));
  probe = moduleLog(work);
});

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

function run(node: string, cli: string, args: string[], env: Record<string, string> = {}, cwd = work) {
  const result = spawnSync(node, [cli, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', MCP_CONTRACT_GUARD_TODAY: '2026-01-01', ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the bundled bin', () => {
  it('is what package.json names, and not lib/cli.js', () => {
    expect(BIN).toBe(resolve(ROOT, 'lib/bundle/cli.cjs'));
  });

  it('prints what lib/cli.js prints, byte for byte, with the same exit code', () => {
    const release = [realWorld('server-everything@2025.9.12.json'), realWorld('server-everything@2026.7.4.json')];
    // Each in a folder of its own: lock writes there.
    const [bundledDir, unbundledDir] = ['bundled', 'unbundled'].map((name) => folder(join(work, name)));
    const lockfile = 'one.lock.json';
    const cases = [
      ['--help'],
      ['--version'],
      ['diff', '--help'],
      ['proxy', '--help'],
      ['diff', ...release],
      ['diff', '--format', 'json', ...release],
      ['diff', '--format', 'sarif', ...release],
      ['diff', '--format', 'json', 'variants-old.json', 'variants-new.json'],
      ['lock', '--file', 'one.json', '--lockfile', lockfile],
      ['check', '--file', 'one.json', '--lockfile', lockfile],
      ['check', '--file', 'variants-new.json', '--lockfile', lockfile, '--format', 'markdown'],
      ['diff', 'missing.json', 'one.json'],
      ['nonsense'],
    ];
    for (const args of cases) {
      // The folder's path aside (the lock command it advises names the file absolutely).
      const inFolder = (result: ReturnType<typeof run>, dir: string) => JSON.parse(JSON.stringify(result).replaceAll(dir, '<folder>')) as typeof result;
      const bundled = inFolder(run(process.execPath, BIN, args, {}, bundledDir), bundledDir);
      const unbundled = inFolder(run(process.execPath, LIB, args, {}, unbundledDir), unbundledDir);
      expect(bundled, args.join(' ')).toEqual(unbundled);
    }
  });

  it('pin --rewrite starts the proxy through the bin it runs: the path names the file the package ships', () => {
    const config = join(work, 'claude_desktop_config.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { dictionary: { command: process.execPath, args: [resolve(ROOT, 'test/fixtures/servers/rewording.mjs')] } } }));
    const { code, stderr } = run(process.execPath, BIN, ['pin', config, '--rewrite', '--lockfile', join(work, 'pins.lock.json')]);
    expect(code, stderr).toBe(0);
    const { mcpServers } = JSON.parse(readFileSync(config, 'utf8')) as { mcpServers: { dictionary: { command: string; args: string[] } } };
    expect([mcpServers.dictionary.command, mcpServers.dictionary.args[0]]).toEqual([process.execPath, BIN]);
  });

  it('runs the semantic cross-check from the bundle: its worker thread is found beside the chunks', () => {
    const { code, stdout } = run(process.execPath, BIN, ['diff', '--format', 'json', 'variants-old.json', 'variants-new.json']);
    expect(code).toBe(0);
    expect(stdout).toContain('"length-range-widened"');
    expect(stdout).not.toContain('cross-check not run');
  });

  // The compile cache is Node's from 22.1 on; the suite's Node may be older, the Action's (MCG_ACTION_NODE) is not.
  const newer = [process.env.MCG_ACTION_NODE, process.execPath].find((node) => {
    if (node === undefined) return false;
    const [major = 0, minor = 0] = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim().split('.').map(Number);
    return major > 22 || (major === 22 && minor >= 1);
  });

  it.skipIf(newer === undefined)("fills a compile cache where Node has one, in Node's default place, and prints the same from it", () => {
    // Node's default: node-compile-cache in the OS temp directory (TMPDIR), unless NODE_COMPILE_CACHE says otherwise.
    const temp = join(work, 'tmp');
    mkdirSync(temp);
    const env = { TMPDIR: temp, NODE_COMPILE_CACHE: '' };
    const args = ['diff', '--format', 'json', 'variants-old.json', 'variants-new.json'];
    const cold = run(newer as string, BIN, args, env);
    expect(readdirSync(join(temp, 'node-compile-cache'), { recursive: true }).length).toBeGreaterThan(0);
    const warm = run(newer as string, BIN, args, env);
    expect(warm).toEqual(cold);
    expect(warm.code).toBe(0);
  });
});

describe("the bundle's layout: what each command loads", () => {
  const release = [realWorld('server-everything@2025.9.12.json'), realWorld('server-everything@2026.7.4.json')];
  /** The files of lib/bundle/ (by their chunk's name, without the hash) and of node_modules that `args` loads, in order. */
  function loaded(args: string[], input?: string): { bundle: string[]; dependencies: string[] } {
    const urls = probe.record((env) => {
      spawnSync(process.execPath, [...probe.nodeArgs, BIN, ...args], { cwd: work, env, input, encoding: 'utf8', timeout: 60_000 });
    });
    const files = [...new Set(urls.filter((url) => url.startsWith('file:')))];
    return {
      bundle: files.filter((url) => url.includes('/lib/bundle/')).map((url) => url.slice(url.lastIndexOf('/') + 1).replace(/-[\w-]{8}\.cjs$/, '')),
      dependencies: files.filter((url) => url.includes('/node_modules/')),
    };
  }

  it('--help loads the bin and the front chunk (parser, command table, help), nothing else', () => {
    expect(loaded(['--help'])).toEqual({ bundle: ['cli.cjs', 'front'], dependencies: [] });
  });

  it('diff of two dumps loads the front and the engine in a handful of files: no config reader, server pipeline or proxy, no dependency', () => {
    for (const args of [['diff', 'one.json', 'one.json'], ['diff', ...release]]) {
      const { bundle, dependencies } = loaded(args);
      expect(bundle.slice(0, 3), args.join(' ')).toEqual(['cli.cjs', 'front', 'engine']);
      // Beyond them: what the engine shares with the proxy and the pinning proxy.
      expect(bundle.slice(3).every((name) => /^engine_\w+$/.test(name)), bundle.join(' ')).toBe(true);
      expect(bundle.length, bundle.join(' ')).toBeLessThanOrEqual(5);
      expect(dependencies).toEqual([]);
    }
  });

  it("a command's help loads none of its code", () => {
    expect(loaded(['diff', '--help'])).toEqual({ bundle: ['cli.cjs', 'front'], dependencies: [] });
  });

  it('the proxy loads none of the commands\' code, and without a pin none of the diff engine', () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'layout', version: '1' } } };
    const { bundle } = loaded(['proxy', '--', process.execPath, resolve(ROOT, 'test/fixtures/servers/raw-inventory.mjs')], `${JSON.stringify(initialize)}\n`);
    expect(bundle).toContain('relay');
    expect(bundle.filter((name) => name.startsWith('engine') && name !== 'engine_proxy_pin')).toEqual([]);
  });
});
