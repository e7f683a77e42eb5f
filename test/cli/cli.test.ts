import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, runAsPrinted, startCli } from '../helpers/cli.js';
import { example, fixture, timeoutForThisMachine } from '../helpers/processes.js';
import { CLI_COMMAND } from '../../src/version.js';

const dir = mkdtempSync(join(tmpdir(), 'mcg-cli-'));
const v1 = `node ${example('v1')}`;
const v2 = `node ${example('v2')}`;
const lockV1 = join(dir, 'v1.lock.json');
const lockV2 = join(dir, 'v2.lock.json');

function noStackTrace(text: string) {
  expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
}

beforeAll(async () => {
  const [a, b] = await Promise.all([
    cli(['lock', '--command', v1, '--lockfile', lockV1, '--quiet']),
    cli(['lock', '--command', v2, '--lockfile', lockV2, '--quiet']),
  ]);
  expect(a.code).toBe(0);
  expect(b.code).toBe(0);
});

describe('lock', () => {
  it('writes the lockfile and prints a one-line summary; a second run changes no byte', async () => {
    const path = join(dir, 'again.lock.json');
    const first = await cli(['lock', '--command', v1, '--lockfile', path]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(`Locked inventory: 5 tools, 1 prompt, 1 resource → ${path} (created)\n`);
    expect(first.stderr).toContain('› starting');
    const bytes = readFileSync(path, 'utf8');
    expect(bytes).toBe(readFileSync(lockV1, 'utf8'));
    const second = await cli(['lock', '--command', v1, '--lockfile', path, '--quiet']);
    expect(second.stdout).toContain('(unchanged)');
    expect(second.stderr).toBe('');
    expect(readFileSync(path, 'utf8')).toBe(bytes);
  });
});

describe('check', () => {
  it('exits 0 when the server matches its lockfile', async () => {
    const result = await cli(['check', '--command', v1, '--lockfile', lockV1, '--quiet']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`✓ inventory matches ${lockV1} (5 tools, 1 prompt, 1 resource)\n`);
  });

  it('exits 1 with what drifted and the command that accepts it', async () => {
    const result = await cli(['check', '--command', v2, '--lockfile', lockV1, '--quiet']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`✗ inventory no longer matches ${lockV1}`);
    for (const name of ['create_order', 'list_orders', 'delete_order', 'get_stock', 'archive_order', 'restock']) expect(result.stdout).toContain(name);
    expect(result.stdout).toContain('BREAKING');
    expect(result.stdout).toContain(`If these changes are intended, update the lockfile: ${CLI_COMMAND} lock --command`);
  });

  it('verifies a lockfile that is not byte for byte what lock writes (reformatted) before trusting it', async () => {
    const reformatted = join(dir, 'reformatted.lock.json');
    writeFileSync(reformatted, JSON.stringify(JSON.parse(readFileSync(lockV1, 'utf8')), null, 4));
    const result = await cli(['check', '--command', v1, '--lockfile', reformatted, '--quiet']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`✓ inventory matches ${reformatted} (5 tools, 1 prompt, 1 resource)\n`);
    const tampered = join(dir, 'reformatted-tampered.lock.json');
    writeFileSync(tampered, readFileSync(reformatted, 'utf8').replace('"Move an order to the archive."', '"Edited."'));
    const edited = await cli(['check', '--command', v1, '--lockfile', tampered, '--quiet']);
    expect(edited.code).toBe(2);
    expect(edited.stderr).toContain('was edited by hand: the digest of tools.archive_order does not match its contract.');
  });

  it('reports a hand-edited lockfile as tampered (exit 2) with the command that regenerates it', async () => {
    const path = join(dir, 'tampered.lock.json');
    writeFileSync(path, readFileSync(lockV1, 'utf8').replace('"Move an order to the archive."', '"Edited."'));
    const result = await cli(['check', '--command', v1, '--lockfile', path, '--quiet']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('was edited by hand: the digest of tools.archive_order does not match its contract.');
    expect(result.stderr).toContain(`regenerate it with \`${CLI_COMMAND} lock --command`);
    noStackTrace(result.stderr);
  });

  it('rejects a lockfile of an unknown version, or a truncated one (exit 2)', async () => {
    const newer = join(dir, 'newer.lock.json');
    writeFileSync(newer, readFileSync(lockV1, 'utf8').replace('"lockfileVersion": 2', '"lockfileVersion": 3'));
    const truncated = join(dir, 'truncated.lock.json');
    writeFileSync(truncated, readFileSync(lockV1, 'utf8').slice(0, 400));
    const a = await cli(['check', '--command', v1, '--lockfile', newer, '--quiet']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('has lockfile version 3, but this mcp-contract-guard reads version 2: upgrade mcp-contract-guard.');
    const b = await cli(['check', '--command', v1, '--lockfile', truncated, '--quiet']);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('is not valid JSON');
    expect(b.stderr).toContain('it may be truncated');
  });

  it('says how to create a missing lockfile', async () => {
    const result = await cli(['check', '--command', v1, '--lockfile', join(dir, 'none.json')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('There is no lockfile at');
    expect(result.stderr).toContain(`Create it with: ${CLI_COMMAND} lock --command`);
  });

  it('the lock command it advises for a missing, then a stale lockfile is npx at this version, and run as printed makes the next check pass', async () => {
    const work = mkdtempSync(join(tmpdir(), 'mcg-advice-'));
    // A space in the path: the line must quote it to run as printed.
    const lockfile = 'printed advice.lock.json';
    const check = (server: string) => cli(['check', '--command', server, '--lockfile', lockfile, '--quiet'], { cwd: work });
    /** The rest of the line that `lead` starts, in `text`. */
    const advice = (text: string, lead: string) => text.slice(text.indexOf(lead) + lead.length).split('\n')[0] as string;

    const missing = await check(v1);
    expect(missing.code).toBe(2);
    const create = advice(missing.stderr, 'Create it with: ');
    expect(create).toBe(`${CLI_COMMAND} lock --command '${v1}' --lockfile '${lockfile}'`);
    const created = await runAsPrinted(create, work);
    expect(created.code, created.stderr).toBe(0);
    expect((await check(v1)).code).toBe(0);

    const stale = await check(v2);
    expect(stale.code).toBe(1);
    const update = advice(stale.stdout, 'If these changes are intended, update the lockfile: ');
    expect(update).toBe(create.replace(v1, v2));
    const updated = await runAsPrinted(update, work);
    expect(updated.code, updated.stderr).toBe(0);
    const current = await check(v2);
    expect(current.code, current.stdout).toBe(0);
    expect(current.stdout).toBe(`✓ inventory matches ${lockfile} (5 tools, 1 prompt, 1 resource)\n`);
  });
});

describe('diff', () => {
  it('prints the fixed JSON shape, and --fail-on decides the exit code (default BREAKING)', async () => {
    const result = await cli(['diff', lockV1, lockV2, '--format', 'json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.version).toBe(1);
    expect(report.summary.maxSeverity).toBe('BREAKING');
    expect(Object.keys(report)).toEqual(expect.arrayContaining(['summary', 'tools', 'prompts', 'resources']));
    const create = report.tools.create_order.deltas.find((d: { field: string }) => d.field.includes('currency'));
    expect(create).toMatchObject({ severity: 'BREAKING', action: null });
    expect((await cli(['diff', lockV1, lockV2, '--fail-on', 'never'])).code).toBe(0);
    expect((await cli(['diff', lockV1, lockV1, '--fail-on', 'COSMETIC'])).code).toBe(0);
  });

  it('prints markdown, XML and SARIF pointing at the lockfile lines of the changed entries', async () => {
    const markdown = await cli(['diff', lockV1, lockV2, '--format', 'markdown']);
    expect(markdown.stdout).toMatch(/\| 🔴 \| [^|]*`create_order`[^|]* \| now requires `currency`/);
    const xml = await cli(['diff', lockV1, lockV2, '--format', 'xml']);
    expect(xml.stdout).toMatch(/<delta severity="BREAKING" kind="required-property-added" field="inputSchema\.properties\.currency">/);
    const sarif = JSON.parse((await cli(['diff', lockV1, lockV2, '--format', 'sarif'])).stdout);
    expect(sarif.version).toBe('2.1.0');
    const lines = sarif.runs[0].results.map((r: { locations: Array<{ physicalLocation: { region?: { startLine: number } } }> }) => r.locations[0]!.physicalLocation.region?.startLine ?? 1);
    expect(lines.filter((line: number) => line > 1).length).toBeGreaterThan(0);
  });

  it('reads tools/list dumps as well as lockfiles', async () => {
    const dump = join(dir, 'dump.json');
    writeFileSync(dump, JSON.stringify({ jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } }));
    const result = await cli(['diff', dump, lockV1, '--format', 'json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).tools.echo.deltas[0].kind).toBe('tool-removed');
  });

  it('a null default removed is said once, without a "(none) → (none)" line', async () => {
    const reason = (extra: object) => ({ tools: [{ name: 'cancel', inputSchema: { type: 'object', properties: { reason: { type: ['string', 'null'], ...extra } } } }] });
    const before = join(dir, 'null-default-before.json');
    const after = join(dir, 'null-default-after.json');
    writeFileSync(before, JSON.stringify(reason({ default: null })));
    writeFileSync(after, JSON.stringify(reason({})));
    for (const format of ['text', 'markdown']) {
      const result = await cli(['diff', before, after, '--format', format]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('reason: default null removed.');
      expect(result.stdout).not.toMatch(/\(none\)`? → `?\(none\)/);
    }
  });

  it('a default changed from null says null, not none', async () => {
    const limit = (value: unknown) => ({ tools: [{ name: 'find', inputSchema: { type: 'object', properties: { limit: { type: ['integer', 'null'], default: value } } } }] });
    const before = join(dir, 'default-null-before.json');
    const after = join(dir, 'default-null-after.json');
    writeFileSync(before, JSON.stringify(limit(null)));
    writeFileSync(after, JSON.stringify(limit(5)));
    const result = await cli(['diff', before, after]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('limit: default changed from null to 5.');
  });

  it('a blocked gate tells to add the allow entry to the config file in use (--config), not the default name', async () => {
    const config = join(dir, 'gate-config.json');
    writeFileSync(config, JSON.stringify({ allow: [] }));
    const result = await cli(['diff', lockV1, lockV2, '--config', config]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`to "allow" in ${config}.\n`);
    expect(result.stdout).not.toContain('mcp-contract-guard.config.json');
  });

  it('rejects a malformed dump file (exit 2)', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"tools": [');
    const notDump = join(dir, 'not-dump.json');
    writeFileSync(notDump, '{"items": []}');
    const a = await cli(['diff', bad, lockV1]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('is not valid JSON');
    const b = await cli(['diff', notDump, lockV1]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('is not a tools/list dump: expected a JSON object with a "tools" array');
    expect(b.stderr).toContain('A lockfile and what compile --format json prints are read too.');
  });

  it('diff reads what compile --format json prints, as it reads the lockfiles of the same servers', async () => {
    const [old, current] = [join(dir, 'v1.compiled.json'), join(dir, 'v2.compiled.json')];
    for (const [path, command] of [[old, v1], [current, v2]] as const) {
      const compiled = await cli(['compile', '--command', command, '--format', 'json', '--quiet']);
      expect(compiled.code).toBe(0);
      writeFileSync(path, compiled.stdout);
    }
    const [fromCompile, fromLockfiles] = await Promise.all([cli(['diff', old, current, '--format', 'json']), cli(['diff', lockV1, lockV2, '--format', 'json'])]);
    expect(fromCompile.code).toBe(1);
    expect(fromCompile.stdout).toBe(fromLockfiles.stdout);
    // The same contracts, byte for byte: the lockfile of v1 matches what compile printed for it.
    const check = await cli(['check', '--file', old, '--lockfile', lockV1]);
    expect(check).toMatchObject({ code: 0, stdout: expect.stringContaining('✓ inventory matches') });
  });

  it('diff refuses what compile prints without one server\'s contracts (an error report, several servers), saying what to do', async () => {
    const failed = await cli(['compile', '--command', `node ${fixture('exits-early.mjs')}`, '--no-heal', '--format', 'json', '--quiet']);
    expect(failed.code).toBe(2);
    const report = join(dir, 'failed.compiled.json');
    writeFileSync(report, failed.stdout);
    const refused = await cli(['diff', report, lockV1]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`error: ${report} is the error report of a compile that failed (crashed: The server exited with code 3 before answering initialize.`);
    expect(refused.stderr).toContain('not contracts: the server was not captured, so there is nothing to compare. Fix what it says and compile again.');
    noStackTrace(refused.stderr);

    const v1Contracts = JSON.parse((await cli(['compile', '--file', lockV1, '--format', 'json'])).stdout);
    const several = join(dir, 'several.compiled.json');
    writeFileSync(several, JSON.stringify({ orders: v1Contracts, search: v1Contracts }));
    const both = await cli(['diff', several, lockV1]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(`${several} holds the contracts of 2 servers ("orders", "search"), as compile prints them for a config file: compare one server at a time (compile --server NAME --format json), or their lockfiles.`);

    const broken = join(dir, 'broken.compiled.json');
    writeFileSync(broken, JSON.stringify({ ...v1Contracts, tools: { create_order: { description: 'no contract' } } }));
    expect((await cli(['diff', broken, lockV1])).stderr).toBe(`error: ${broken}: entry tools.create_order has no "contract" object.\n`);
  });

  it('reads a dump as tools/list returns it, inside its JSON-RPC response, or as the array of tools alone', async () => {
    const tools = [{ name: 'search', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }];
    const shapes = { returned: { tools }, response: { jsonrpc: '2.0', id: 2, result: { tools } }, 'response without jsonrpc': { result: { tools } }, array: tools };
    const compiled: string[] = [];
    for (const [name, shape] of Object.entries(shapes)) {
      const file = join(dir, `shape-${name}.json`);
      writeFileSync(file, JSON.stringify(shape));
      const result = await cli(['compile', file, '--format', 'json']);
      expect(result.stderr, name).toBe('');
      compiled.push(result.stdout);
    }
    expect(JSON.parse(compiled[0]!).tools.search.contract.inputSchema.required).toEqual(['q']);
    expect(new Set(compiled).size).toBe(1);
    const notTools = join(dir, 'not-tools.json');
    writeFileSync(notTools, JSON.stringify([1, 2]));
    const refused = await cli(['compile', notTools]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${notTools}: tools[0] is not an object.`);
  });
});

describe('usage and compile errors', () => {
  it('an unknown flag is a usage error (exit 2), without a stack trace', async () => {
    const result = await cli(['lock', '--comand', 'node x.js']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown option '--comand'");
    expect(result.stderr).toContain(`Run "${CLI_COMMAND} --help" for the options.`);
    noStackTrace(result.stderr);
  });

  it('a command that is not found: diagnosis and what to do (exit 2)', async () => {
    const result = await cli(['compile', '--command', 'no-such-server --stdio', '--quiet']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('The command "no-such-server" was not found on PATH.');
    expect(result.stderr).toContain('What to do:');
    expect(result.stderr).toContain(`Then run again: ${CLI_COMMAND} compile --command 'no-such-server --stdio'`);
    noStackTrace(result.stderr);
  });

  it('a server that never answers honours --timeout, and --format json reports the attempts', async () => {
    const result = await cli(['compile', '--command', `node ${fixture('never-answers.mjs')}`, '--timeout', '0.5', '--no-heal', '--format', 'json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('did not answer initialize within 0.5 s');
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { category: 'timeout' }, attempts: [{ number: 1, outcome: 'failed' }] });
  });

  it('a server that exits before initialize, one that prints non-JSON', async () => {
    const early = await cli(['compile', '--command', `node ${fixture('exits-early.mjs')}`, '--quiet']);
    expect(early.code).toBe(2);
    expect(early.stderr).toContain('exited with code 3 before answering initialize');
    // It must have started and printed before the timeout: a timeout as long as this machine needs now.
    const timeout = String((await timeoutForThisMachine(500)) / 1000);
    const noisy = await cli(['compile', '--command', `node ${fixture('non-json-stdout.mjs')}`, '--timeout', timeout, '--no-heal', '--quiet']);
    expect(noisy.code).toBe(2);
    expect(noisy.stderr).toContain('never a JSON-RPC message (first line: "Welcome to the weather server v2!")');
    // Said once: "What to do" gives the action, not the explanation again.
    expect(noisy.stderr.match(/never a JSON-RPC message/g)).toHaveLength(1);
    expect(noisy.stderr).toContain('What to do: Make the server speak MCP over stdio with nothing else on stdout');
  });

  it("the command to run again keeps the command's own flags (--lockfile, --fail-on), not only the source's", async () => {
    const result = await cli(['check', '--command', `node ${fixture('exits-early.mjs')}`, '--lockfile', lockV1, '--fail-on', 'risky', '--quiet']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Then run again: ${CLI_COMMAND} check --command 'node ${fixture('exits-early.mjs')}' --lockfile ${lockV1} --fail-on risky\n`);
  });

  it('the commands it advises are quoted for the shell: a lockfile path, an env or header name with $( ) or a quote runs nothing when pasted', async () => {
    const odd = join(dir, 'a b$(touch pwned).lock.json');
    const missing = await cli(['check', '--command', v1, '--lockfile', odd, '--quiet']);
    expect(missing.stderr).toContain(`Create it with: ${CLI_COMMAND} lock --command '${v1}' --lockfile '${odd}'\n`);
    writeFileSync(odd, readFileSync(lockV1));
    const args = ['--command', `node ${fixture('exits-early.mjs')}`, '--env', 'A$(touch pwned)=secret-value', '--header', 'X"$(id)": secret-header', '--url', 'http://127.0.0.1:9/mcp', '--timeout', '1'];
    const failed = await cli(['check', ...args, '--lockfile', odd, '--quiet']);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain(`--env 'A$(touch pwned)=…' --url http://127.0.0.1:9/mcp --header 'X"$(id)": …' --timeout 1 --lockfile '${odd}'\n`);
    expect(failed.stderr).not.toContain('secret');
  });

  it('a server that throws: the error line is quoted, not only its stack frames; one that says nothing is said to', async () => {
    const throws = join(dir, 'throws.mjs');
    writeFileSync(throws, "function connect() { throw new TypeError('DATABASE_URL is malformed'); }\nconnect();\n");
    const thrown = await cli(['compile', '--command', `node ${throws}`, '--quiet']);
    expect(thrown.code).toBe(2);
    expect(thrown.stderr).toContain("    TypeError: DATABASE_URL is malformed\n");
    expect(thrown.stderr).not.toMatch(/^\s+at /m);
    const silent = join(dir, 'silent-exit.mjs');
    writeFileSync(silent, 'process.exit(5);\n');
    const quiet = await cli(['compile', '--command', `node ${silent}`, '--quiet']);
    expect(quiet.code).toBe(2);
    expect(quiet.stderr).toContain('exited with code 5 before answering initialize. It wrote nothing on stderr.');
    expect(quiet.stderr).not.toContain('quoted above');
  });

  it('a URL with no MCP endpoint (HTTP 404): the advice is about the address, not stdout', async () => {
    const server = createServer((_request, response) => response.writeHead(404).end('Not Found'));
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    try {
      const { port } = server.address() as AddressInfo;
      const result = await cli(['compile', '--url', `http://127.0.0.1:${port}/wrong`, '--quiet']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('answered HTTP 404: no MCP endpoint there, of the streamable HTTP transport or of the older HTTP+SSE one.');
      expect(result.stderr).toContain("What to do: Point --url at the server's MCP endpoint (often /mcp, or /sse for a server of the older HTTP+SSE transport)");
      expect(result.stderr).not.toContain('nothing else on stdout');
    } finally {
      server.close();
    }
  });

  it('a missing entry file outside any package: the advice names no command to type', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'mcg-nobuild-'));
    const result = await cli(['compile', '--command', 'node dist/server.js', '--quiet'], { cwd: empty });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('What to do: Build the server before capturing it: run its build step (in CI');
  });

  it('usage errors read as sentences: the commands include proxy, a missing value, a zero --timeout', async () => {
    const unknown = await cli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`error: Unknown command "frobnicate". The commands are: compile, lock, check, diff, pin, changelog, usage, proxy. Run "${CLI_COMMAND} --help" for details.\n`);
    const missing = await cli(['compile', '--format']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`error: Option '--format <value>' argument missing. Run "${CLI_COMMAND} --help" for the options.\n`);
    const zero = await cli(['compile', '--command', 'node x.js', '--timeout', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toBe('error: --timeout is in seconds, more than 0 and at most 3600; got "0".\n');
  });

  it('a healed capture says which flags to commit', async () => {
    // A slow start: the server answers once the CLI has said it waits on it past the timeout.
    const ready = join(dir, 'slow-start-ready');
    const run = startCli(['compile', '--command', `node ${fixture('slow-start.mjs')}`, '--env', `READY_FILE=${ready}`, '--timeout', '2', '--format', 'json']);
    await run.saysOnStderr('still starting');
    writeFileSync(ready, 'ready');
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).tools.ping).toBeDefined();
    expect(result.stderr).toMatch(/healed after 2 attempts: kept waiting on the same process past the 2 s timeout \(a slow start\): it answered after \d+\.\d s\./);
    expect(result.stderr).toMatch(/To make it work the first time, use: .* --env READY_FILE=… --timeout \d+\n/);
  });

  it('refuses shell syntax in --command', async () => {
    const result = await cli(['compile', '--command', 'node server.js | tee log']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('without a shell');
  });
});

describe('config file', () => {
  it('runs every server of a monorepo config, or the one --server names', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'mcg-config-'));
    writeFileSync(
      join(repo, 'mcp-contract-guard.config.json'),
      JSON.stringify({
        servers: {
          orders: { command: v1, lockfile: 'orders.lock.json' },
          stateless: { command: `node ${fixture('stateless.mjs')}`, lockfile: 'stateless.lock.json' },
        },
      }),
    );
    const all = await cli(['lock', '--quiet'], { cwd: repo });
    expect(all.code).toBe(0);
    expect(all.stdout).toBe('Locked inventory: 5 tools, 1 prompt, 1 resource → orders.lock.json (created)\nLocked stateless: 1 tool, 1 resource, 1 resource template → stateless.lock.json (created)\n');
    const one = await cli(['check', '--server', 'stateless', '--quiet'], { cwd: repo });
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('✓ stateless matches stateless.lock.json');
    const unknown = await cli(['check', '--server', 'nope'], { cwd: repo });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('There is no server "nope" in');
  });

  it('a --lockfile given with --server is kept in the lock command it advises; a missing --config is named', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'mcg-config-'));
    writeFileSync(join(repo, 'mcp-contract-guard.config.json'), JSON.stringify({ servers: { orders: { command: v1 }, other: { command: v2, lockfile: 'other.lock.json' } } }));
    const missing = await cli(['check', '--server', 'orders', '--lockfile', 'elsewhere.lock.json', '--quiet'], { cwd: repo });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`error: There is no lockfile at elsewhere.lock.json yet. Create it with: ${CLI_COMMAND} lock --server orders --lockfile elsewhere.lock.json\n`);
    // The advice works: after it, the same check passes.
    expect((await cli(['lock', '--server', 'orders', '--lockfile', 'elsewhere.lock.json', '--quiet'], { cwd: repo })).code).toBe(0);
    expect((await cli(['check', '--server', 'orders', '--lockfile', 'elsewhere.lock.json', '--quiet'], { cwd: repo })).code).toBe(0);
    const noConfig = await cli(['check', '--config', 'nope.json'], { cwd: repo });
    expect(noConfig.code).toBe(2);
    expect(noConfig.stderr).toBe(`error: The config file ${join(repo, 'nope.json')} does not exist.\n`);
  });

  it('reports an invalid config with the path of each problem', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'mcg-config-'));
    writeFileSync(join(repo, 'mcp-contract-guard.config.json'), JSON.stringify({ servers: { a: { comand: 'x' } } }));
    const result = await cli(['lock'], { cwd: repo });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is invalid:');
    expect(result.stderr).toMatch(/servers\.a/);
  });
});

describe('the release an artifact records (--released-at, --release)', () => {
  it('dates the artifact and the JSON report, the version defaulting to the server\'s own', async () => {
    const artifact = join(dir, 'released.json');
    const result = await cli(['diff', lockV1, lockV2, '--format', 'json', '--artifact', artifact, '--released-at', '2025-06-01T23:30:00-02:00']);
    expect(result.code).toBe(1);
    // A date-time with its offset is the UTC day it falls on.
    expect(JSON.parse(result.stdout).release).toEqual({ version: '2.0.0', date: '2025-06-02' });
    expect(JSON.parse(readFileSync(artifact, 'utf8')).release).toEqual({ version: '2.0.0', date: '2025-06-02' });
    const named = await cli(['diff', lockV1, lockV2, '--format', 'json', '--released-at', 'today', '--release', 'v2-rc1'], { env: { MCP_CONTRACT_GUARD_TODAY: '2030-01-15' } });
    expect(JSON.parse(named.stdout).release).toEqual({ version: 'v2-rc1', date: '2030-01-15' });
    // Without either flag the report says nothing of when: the diff reads no clock.
    expect(JSON.parse((await cli(['diff', lockV1, lockV2, '--format', 'json'])).stdout).release).toBeUndefined();
  });

  it('refuses a date it cannot read, before doing anything', async () => {
    for (const value of ['2025-13-01', 'June 1st', '2025-06-01T10:00']) {
      const result = await cli(['diff', lockV1, lockV2, '--released-at', value]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--released-at takes a day (2025-06-01), a date-time with its offset (2025-06-01T14:03:00+02:00) or "today"; got "${value}".`);
    }
  });
});
