/**
 * A config run checks every server even when one fails, reports each, and exits 2 after all of
 * them; an empty config is an error, not a silent success.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { example, fixture } from '../helpers/processes.js';
import { CLI_COMMAND } from '../../src/version.js';

function repoWith(config: unknown): string {
  const repo = mkdtempSync(join(tmpdir(), 'mcg-config-run-'));
  writeFileSync(join(repo, 'mcp-contract-guard.config.json'), JSON.stringify(config));
  return repo;
}

describe('a config of several servers', () => {
  // The broken one sits between two good ones: the run must go past it.
  const repo = repoWith({
    servers: {
      orders: { command: `node ${example('v1')}`, lockfile: 'orders.lock.json' },
      broken: { command: 'no-such-mcp-server --stdio', lockfile: 'broken.lock.json' },
      stateless: { command: `node ${fixture('stateless.mjs')}`, lockfile: 'stateless.lock.json' },
    },
  });

  it('lock and check report every server, the failure summed up at the end, then exit 2', async () => {
    const lock = await cli(['lock', '--quiet'], { cwd: repo });
    expect(lock.code).toBe(2);
    expect(lock.stdout).toBe('Locked inventory: 5 tools, 1 prompt, 1 resource → orders.lock.json (created)\nLocked stateless: 1 tool, 1 resource, 1 resource template → stateless.lock.json (created)\n');
    expect(lock.stderr).toContain('error: server "broken": Could not capture the contracts of');
    expect(lock.stderr).toContain('The command "no-such-mcp-server" was not found on PATH.');
    expect(lock.stderr.trimEnd().split('\n').at(-1)).toBe('error: 1 of 3 servers could not be locked: broken (see above).');

    const check = await cli(['check', '--quiet'], { cwd: repo });
    expect(check.code).toBe(2);
    expect(check.stdout).toBe('✓ inventory matches orders.lock.json (5 tools, 1 prompt, 1 resource)\n✓ stateless matches stateless.lock.json (1 tool, 1 resource, 1 resource template)\n');
    expect(check.stderr).toContain(`error: server "broken": There is no lockfile at broken.lock.json yet. Create it with: ${CLI_COMMAND} lock --server broken`);
    expect(check.stderr.trimEnd().split('\n').at(-1)).toBe('error: 1 of 3 servers could not be checked: broken (see above).');
  });

  it('compile --format json keys the contracts by server; machine formats of check need one server', async () => {
    const good = repoWith({ servers: { a: { file: 'a.json', lockfile: 'a.lock.json' }, b: { file: 'b.json', lockfile: 'b.lock.json' } } });
    for (const name of ['a', 'b']) writeFileSync(join(good, `${name}.json`), JSON.stringify({ tools: [{ name: `tool_${name}`, inputSchema: { type: 'object' } }] }));
    const compiled = await cli(['compile', '--format', 'json', '--quiet'], { cwd: good });
    expect(compiled.code).toBe(0);
    expect(Object.keys(JSON.parse(compiled.stdout))).toEqual(['a', 'b']);
    for (const flags of [['--format', 'sarif'], ['--artifact', 'deltas.json']]) {
      const check = await cli(['check', ...flags], { cwd: good });
      expect(check.code).toBe(2);
      expect(check.stderr).toContain('but the config lists 2 servers: pick one with --server (or run once per server).');
    }
  });
});

describe('an empty config', () => {
  it('{"servers": {}} is an error that says what to add (exit 2)', async () => {
    const repo = repoWith({ servers: {} });
    for (const command of ['lock', 'check', 'compile']) {
      const result = await cli([command], { cwd: repo });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('is invalid:\n  servers: list at least one server (its "command", "url" or "file")');
      expect(result.stdout).toBe('');
    }
  });
});

describe('a config that holds only an allow list', () => {
  it('applies beside --command, --url or --file, and without one says what to give (exit 2)', async () => {
    const repo = repoWith({ allow: [{ fingerprint: '66f62fc1562086e9', reason: 'delete_order was never used', expires: '2030-03-01' }] });
    const lock = await cli(['lock', '--quiet'], { cwd: repo });
    expect(lock.code).toBe(2);
    expect(lock.stderr).toContain('lists no servers: it only holds an allow list, which applies when --command, --url or --file names the server. Give one of those, or add a "servers" object to the file.');
    const today = { MCP_CONTRACT_GUARD_TODAY: '2030-01-01' };
    await cli(['lock', '--quiet', '--command', `node ${example('v1')}`], { cwd: repo });
    // The allow list accepts the removal of delete_order; the four other BREAKING changes still block.
    const check = await cli(['check', '--quiet', '--command', `node ${example('v2')}`], { cwd: repo, env: today });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('Accepted by the allow list (1):');
    expect(check.stdout).toContain('✗ 4 changes at or above --fail-on BREAKING (4 BREAKING), not accepted by the allow list:');
    expect(check.stdout).toContain('"expires": "2030-04-01"} to "allow"');
  });
});
