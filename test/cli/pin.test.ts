/**
 * `mcp-contract-guard pin`, as a process, on client configurations: a Claude Desktop
 * configuration with two servers (one an `npx` range resolved against the npm registry, one with
 * a secret in its environment), then the rewritten configuration started by a real client (an
 * SDK Client spawning exactly the command each entry names); VS Code's inputs; bad input, with
 * nothing written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { fixture } from '../helpers/processes.js';
import { publishedPackage } from '../helpers/published.js';
import { CLI_COMMAND } from '../../src/version.js';

const SECRET = 's3cret-dictionary-token-4242';
const dirs: string[] = [];
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcg-pin-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** An SDK client spawning exactly what a configuration entry names. */
async function launch(entry: { command: string; args: string[]; env?: Record<string, string> }, cwd: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, env: { ...(process.env as Record<string, string>), ...entry.env }, stderr: 'pipe', cwd });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'claude-desktop-stand-in', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('pin a Claude Desktop configuration, then start it rewritten', () => {
  it('pins both servers (the npx range at the exact version it resolves to, the secret by name only), rewrites the file keeping a backup, and a client starts each entry as written', async () => {
    // Warm npm's cache, so npx finds the release without waiting on the registry.
    publishedPackage('@modelcontextprotocol/server-everything', '2025.9.25');
    const dir = folder();
    const config = join(dir, 'claude_desktop_config.json');
    const original = `${JSON.stringify(
      {
        globalShortcut: 'Ctrl+Space',
        mcpServers: {
          everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything@2025.9', 'stdio'] },
          dictionary: { command: process.execPath, args: [fixture('rewording.mjs')], env: { DICTIONARY_TOKEN: SECRET } },
        },
      },
      null,
      2,
    )}\n`;
    writeFileSync(config, original);

    const pinned = await cli(['pin', config, '--rewrite', '--lockfile', join(dir, 'pins.lock.json')], { cwd: dir });
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(pinned.stdout).toContain('Pinned everything: @modelcontextprotocol/server-everything@2025.9.25, 12 tools, 3 prompts, 100 resources, 1 resource template\n');
    expect(pinned.stdout).toContain('Pinned dictionary: its command as written (no registry version), 3 tools; needs DICTIONARY_TOKEN (names only are stored)\n');
    expect(pinned.stdout).toContain('→ pins.lock.json (created)\n');
    expect(pinned.stdout).toContain('Rewrote ');
    const pins = readFileSync(join(dir, 'pins.lock.json'), 'utf8');
    for (const text of [pins, pinned.stdout, pinned.stderr]) expect(text).not.toContain(SECRET);
    const file = JSON.parse(pins) as { configuration: string; servers: Record<string, { launch: Record<string, unknown> }> };
    expect(file.configuration).toBe('claude_desktop_config.json');
    expect(file.servers.everything?.launch).toEqual({
      command: ['npx', '-y', '@modelcontextprotocol/server-everything@2025.9.25', 'stdio'],
      package: { registry: 'npm', name: '@modelcontextprotocol/server-everything', version: '2025.9.25' },
    });
    expect(file.servers.dictionary?.launch).toEqual({ command: [process.execPath, fixture('rewording.mjs')], env: ['DICTIONARY_TOKEN'] });

    expect(readFileSync(`${config}.bak`, 'utf8')).toBe(original);
    const rewritten = JSON.parse(readFileSync(config, 'utf8')) as { globalShortcut: string; mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }> };
    expect(rewritten.globalShortcut).toBe('Ctrl+Space');
    const everything = rewritten.mcpServers.everything!;
    expect(everything.args.slice(-5)).toEqual(['--', 'npx', '-y', '@modelcontextprotocol/server-everything@2025.9.25', 'stdio']);
    expect(everything.args.slice(0, everything.args.indexOf('--')).slice(-5)).toEqual(['proxy', '--lockfile', join(dir, 'pins.lock.json'), '--server', 'everything']);
    expect(rewritten.mcpServers.dictionary?.env).toEqual({ DICTIONARY_TOKEN: SECRET });

    // The client starts each entry as the configuration now names it: the proxy, holding the pin.
    const started = await launch(everything, dir);
    try {
      const tools = (await started.client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toContain('echo');
      expect((await started.client.callTool({ name: 'echo', arguments: { message: 'pinned' } })).content).toEqual([{ type: 'text', text: 'Echo: pinned' }]);
      expect(started.stderr()).toContain(`holding "everything" to ${join(dir, 'pins.lock.json')}`);
      // This client declares no roots or elicitation, which the capture did: the tools the server offers only then are not drift.
      expect(started.stderr()).toContain('the client does not declare elicitation, roots, sampling');
      expect(started.stderr()).not.toContain('pin "everything": tool');
    } finally {
      await started.client.close();
    }
    const dictionary = await launch(rewritten.mcpServers.dictionary!, dir);
    try {
      expect((await dictionary.client.callTool({ name: 'lookup', arguments: { word: 'pin' } })).content).toEqual([{ type: 'text', text: 'pin: a word' }]);
      // A drift is held, and the way back names this configuration.
      // The server announces list_changed before it answers: by the answer, the proxy has forgotten the listing it judged.
      await dictionary.client.callTool({ name: 'reword', arguments: {} });
      const held = (await dictionary.client.callTool({ name: 'lookup', arguments: { word: 'pin' } })).content as Array<{ text: string }>;
      expect(held[0]?.text).toContain(`${CLI_COMMAND} pin ${config} --server dictionary --lockfile ${join(dir, 'pins.lock.json')}`);
    } finally {
      await dictionary.client.close();
    }

    // Pinning the rewritten configuration again pins the same servers: nothing changes.
    const again = await cli(['pin', config, '--rewrite', '--lockfile', join(dir, 'pins.lock.json')], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('→ pins.lock.json (unchanged)\n');
    expect(again.stdout).toContain('already starts each server through the pinning proxy (unchanged)');
    expect(existsSync(`${config}.bak.1`)).toBe(false);
  }, 180_000);
});

describe('pin: VS Code inputs and bad input', () => {
  const vscode = (dir: string) => {
    const path = join(dir, '.vscode', 'mcp.json');
    writeFileSync(join(dir, 'placeholder'), '');
    return path;
  };

  it("VS Code's ${input:…}: without its value here, an error naming the variable, and nothing written; with it, pinned by name", async () => {
    const dir = folder();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, '.vscode'));
    const config = vscode(dir);
    const text = `{
  // The dictionary needs a token VS Code asks for.
  "inputs": [{ "type": "promptString", "id": "dictionary_token", "description": "Token", "password": true }],
  "servers": {
    "dictionary": { "type": "stdio", "command": "${process.execPath}", "args": ["\${workspaceFolder}/dictionary.mjs"], "env": { "TOKEN": "\${input:dictionary_token}" } },
  },
}
`;
    writeFileSync(config, text);
    writeFileSync(join(dir, 'dictionary.mjs'), readFileSync(fixture('rewording.mjs'), 'utf8').replace("from './rpc.mjs'", `from ${JSON.stringify(fixture('rpc.mjs'))}`));
    const missing = await cli(['pin', config, '--rewrite'], { cwd: dir, env: { DICTIONARY_TOKEN: '' } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('.vscode/mcp.json: servers.dictionary.env.TOKEN is ${input:dictionary_token}, which the client asks its user for: set TOKEN in the environment pin runs in');
    expect(missing.stderr).toContain('nothing was written');
    expect(existsSync(join(dir, 'mcp-pins.lock.json'))).toBe(false);
    expect(readFileSync(config, 'utf8')).toBe(text);

    const pinned = await cli(['pin', config, '--rewrite', '--on-drift', 'hide'], { cwd: dir, env: { TOKEN: SECRET } });
    expect(pinned.code, pinned.stderr).toBe(0);
    const pins = readFileSync(join(dir, 'mcp-pins.lock.json'), 'utf8');
    expect(pins).not.toContain(SECRET);
    expect(JSON.parse(pins).configuration).toBe('.vscode/mcp.json');
    const rewritten = readFileSync(config, 'utf8');
    // Comments, inputs and the placeholder stay; the entry now starts the proxy.
    expect(rewritten).toContain('// The dictionary needs a token VS Code asks for.');
    expect(rewritten).toContain('"TOKEN": "${input:dictionary_token}"');
    expect(rewritten).toContain('"--on-drift",');
    expect(rewritten).toContain('"${workspaceFolder}/dictionary.mjs"');
    expect(rewritten).not.toContain(SECRET);
  }, 60_000);

  it('unknown shapes are named where they are; a pin that does not match its digests is never overwritten', async () => {
    const dir = folder();
    const config = join(dir, 'claude_desktop_config.json');
    writeFileSync(config, '{ "servers2": {} }');
    const unknown = await cli(['pin', config], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('has no "mcpServers" object (Claude Desktop, Cursor), "servers" object');
    writeFileSync(config, JSON.stringify({ mcpServers: { broken: { command: 'node', args: ['a', 3] } } }));
    const bad = await cli(['pin', config], { cwd: dir });
    expect(bad.stderr).toBe('error: claude_desktop_config.json: mcpServers.broken.args[1] must be a string.\n');

    writeFileSync(config, JSON.stringify({ mcpServers: { dictionary: { command: process.execPath, args: [fixture('rewording.mjs')] } } }));
    expect((await cli(['pin', config], { cwd: dir })).code).toBe(0);
    const pinPath = join(dir, 'mcp-pins.lock.json');
    const edited = readFileSync(pinPath, 'utf8').replace('Looks up a word in the dictionary.', 'Looks up a word.');
    writeFileSync(pinPath, edited);
    const refused = await cli(['pin', config], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('was edited by hand: the digest of tools.lookup does not match its contract. Nothing was overwritten');
    expect(readFileSync(pinPath, 'utf8')).toBe(edited);
  }, 60_000);

  it('a package version no registry resolves: the error says why and how to pin it by hand', async () => {
    const dir = folder();
    const config = join(dir, 'claude_desktop_config.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { ghost: { command: 'npx', args: ['-y', 'mcp-contract-guard-no-such-package-6c1f'] } } }));
    const result = await cli(['pin', config], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: server "ghost": cannot tell which version of mcp-contract-guard-no-such-package-6c1f "npx -y mcp-contract-guard-no-such-package-6c1f" runs: "npm view mcp-contract-guard-no-such-package-6c1f@latest version" failed');
    expect(result.stderr).toContain('Write the exact version in');
    expect(existsSync(join(dir, 'mcp-pins.lock.json'))).toBe(false);
  }, 60_000);
});
