/**
 * Each command loads what it needs: `--help` and `--version` almost nothing, `diff` only the
 * file reader and the diff engine (never the server pipeline, the Action or its GitHub client).
 * The built CLI runs in a child node process with a resolve hook that logs every module URL.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleLog, type ModuleLog } from '../helpers/module-log.js';
import { PACKAGE_BIN, ROOT } from '../helpers/processes.js';

const SERVER_PIPELINE = /\/lib\/compile\/(capture|stdio|http|legacy-sse|heal|process|channel|diagnose|protocol|index)\.js$/;
const NEVER_FOR_DIFF = [/\/lib\/github\//, SERVER_PIPELINE, /\/node_modules\/@actions\//, /octokit/i, /\/node_modules\/zod\//, /json-schema-diff/];

let work: string;
let probe: ModuleLog;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'mcg-cli-modules-'));
  probe = moduleLog(work);
  // Two dumps whose only difference is a removed tool: no schema pair for the cross-check.
  const tool = (name: string) => ({ name, inputSchema: { type: 'object', properties: { q: { type: 'string' } } } });
  writeFileSync(join(work, 'old.json'), JSON.stringify({ tools: [tool('a'), tool('b')] }));
  writeFileSync(join(work, 'new.json'), JSON.stringify({ tools: [tool('a')] }));
});

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/**
 * The module URLs `mcp-contract-guard ARGS` loads (file: URLs, deduplicated), run in `work`.
 * `failing` is the exit code expected besides 0 (diff exits 1 on the BREAKING removal): the
 * modules it loaded are what matters here.
 */
function modulesLoadedBy(args: string[], failing = 1, input = ''): string[] {
  const urls = probe.record((env) => {
    try {
      execFileSync(process.execPath, [...probe.nodeArgs, resolve(ROOT, 'lib/cli.js'), ...args], { cwd: work, env, input, stdio: 'pipe' });
    } catch (error) {
      if ((error as { status?: number }).status !== failing) throw error;
    }
  });
  return [...new Set(urls.filter((url) => url.startsWith('file:')))];
}

const ours = (urls: string[]) => urls.filter((url) => url.includes('/lib/')).map((url) => url.slice(url.lastIndexOf('/lib/') + 5));

describe('the modules each command loads', () => {
  it('the probe sees the server pipeline when a command does load it: a server to capture', () => {
    // Port 9 (discard) refuses at once: the capture fails (exit 2) after loading the pipeline.
    const loaded = modulesLoadedBy(['compile', '--url', 'http://127.0.0.1:9/mcp', '--no-heal', '--quiet'], 2);
    expect(loaded.some((url) => SERVER_PIPELINE.test(url))).toBe(true);
  });

  it('compile, lock and check of a file: the file reader, never the server pipeline', () => {
    const lockfile = join(work, 'file.lock.json');
    for (const args of [['compile', 'old.json'], ['lock', '--file', 'old.json', '--lockfile', lockfile], ['check', '--file', 'old.json', '--lockfile', lockfile]]) {
      const loaded = modulesLoadedBy([...args, '--quiet']);
      expect(ours(loaded), args.join(' ')).toContain('compile/dump.js');
      for (const url of loaded) expect(url, `${args.join(' ')} loads ${url}`).not.toMatch(SERVER_PIPELINE);
    }
  });

  it('--help and --version: no dependency, none of the engine, only the command table, its parser and the version constant', () => {
    for (const args of [['--help'], ['--version'], ['diff', '--help']]) {
      const loaded = modulesLoadedBy(args);
      expect(loaded.filter((url) => url.includes('/node_modules/'))).toEqual([]);
      const own = ours(loaded);
      expect(own).toContain('cli/main.js');
      for (const module of own) expect(module, `${args.join(' ')} loads ${module}`).toMatch(/^(cli\.js|cli\/(process|main|args|flags|commands|context|help)\.js|compile\/(argv|source|env|redact|interrupt)\.js|config-location\.js|protocol\/(report|review)\.js|policy\/checks\.js|errors\.js|version\.js)$/);
    }
  });

  // The process's streams are made only to tell a terminal (for colors): `--help` asks no such
  // thing, and writing with writeSync needs none. Node's own modules are in process.moduleLoadList.
  // The package's bin: lib/cli.js, an ES module, loads node:stream with the facade of node:fs.
  it('--help from the bin, its output to /dev/null or a file: Node\'s stream modules are never loaded', () => {
    const preload = join(work, 'loaded-builtins.cjs');
    const record = join(work, 'builtins.json');
    writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify(process.moduleLoadList)));`);
    for (const stdout of ['ignore', openSync(join(work, 'help.txt'), 'w')] as const) {
      execFileSync(process.execPath, ['-r', preload, PACKAGE_BIN, '--help'], { cwd: work, stdio: ['ignore', stdout, 'pipe'] });
      const loaded = JSON.parse(readFileSync(record, 'utf8')) as string[];
      expect(loaded).toContain('NativeModule internal/util/parse_args/parse_args');
      expect(loaded.filter((name) => /^NativeModule (stream|net|tty|internal\/fs\/sync_write_stream)$/.test(name))).toEqual([]);
    }
    expect(readFileSync(join(work, 'help.txt'), 'utf8')).toContain('Usage');
  });

  // A text report asks whether its output is a terminal (to color it): /dev/null is a character
  // device, like a terminal, but never one, and is told apart without making the stream.
  it('a text diff to /dev/null: asks for colors, yet makes no stream for its output', () => {
    const preload = join(work, 'loaded-builtins.cjs');
    const record = join(work, 'builtins.json');
    writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify(process.moduleLoadList)));`);
    try {
      execFileSync(process.execPath, ['-r', preload, PACKAGE_BIN, 'diff', 'old.json', 'new.json'], { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (error) {
      if ((error as { status?: number }).status !== 1) throw error;
    }
    const loaded = JSON.parse(readFileSync(record, 'utf8')) as string[];
    // node:crypto (the fingerprints) loads node:stream itself: the stream for /dev/null is
    // sync_write_stream, and a terminal's tty (with net).
    expect(loaded).toContain('NativeModule crypto');
    expect(loaded.filter((name) => /^NativeModule (net|tty|internal\/fs\/sync_write_stream)$/.test(name))).toEqual([]);
  });

  it('diff: the file reader and the diff engine, never the server pipeline, src/github, @actions, Octokit, zod or json-schema-diff', () => {
    const loaded = modulesLoadedBy(['diff', 'old.json', 'new.json', '--format', 'json']);
    const own = ours(loaded);
    expect(own).toEqual(expect.arrayContaining(['cli/diff-command.js', 'compile/dump.js', 'diff/index.js', 'policy/gate.js']));
    for (const url of loaded) for (const pattern of NEVER_FOR_DIFF) expect(url).not.toMatch(pattern);
    // Nothing from node_modules at all for a JSON report.
    expect(loaded.filter((url) => url.includes('/node_modules/'))).toEqual([]);
  });

  it("proxy, without --lockfile or --usage: the relay, not the CLI's tables, nor the pin's drift judge (normalizer, diff engine, rules), nor the usage recorder", () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'module-graph', version: '1' } } };
    const server = [process.execPath, resolve(ROOT, 'test/fixtures/servers/raw-inventory.mjs')];
    // The client's input ends after initialize: the proxy answers it, stops the server and exits 0.
    const own = ours(modulesLoadedBy(['proxy', '--', ...server], 0, `${JSON.stringify(initialize)}\n`));
    expect(own).toEqual(expect.arrayContaining(['proxy/index.js', 'proxy/relay.js', 'compile/process.js']));
    for (const module of own) expect(module, `the proxy loads ${module}`).not.toMatch(/^(diff|rules)\/|^contract\/(normalize|schema|lockfile)\.js$|^proxy\/pin\.js$|^runtime\/usage\.js$|^cli\/(main|args|help|commands)\.js$/);
  });
});
