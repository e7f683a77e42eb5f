/**
 * The README's and docs/' runnable blocks (test/helpers/runnable-blocks.ts says how they are
 * marked) run as a newcomer runs them: in a fresh copy of this checkout, README first (its quick
 * start installs the clone), then each page of docs/ from the clone as the README left it;
 * `npx mcp-contract-guard@<version>` is the packed tarball, through the registry stand-in. A
 * block's stdout must be exactly the output block shown after it.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runnableBlocks, type RunnableBlock } from '../helpers/runnable-blocks.js';
import { commitAll, removeScratch, ROOT, scratch, shell, strangerEnv } from './environment.js';

const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const BLOCKS = PAGES.flatMap((page) => runnableBlocks(readFileSync(join(ROOT, page), 'utf8'), page));

/** The arguments v1 of the example took for create_order: v2 requires a currency too. */
const V1_ARGUMENTS = { sku: 'A-1', quantity: 2 };

let clone: string;
let server: string;

beforeAll(async () => {
  const work = scratch('docs-');
  // A fresh clone of this checkout, uncommitted changes included: what `git clone` would give.
  clone = join(work, 'clone');
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    let text: Buffer;
    try {
      text = readFileSync(join(ROOT, file));
    } catch {
      continue; // deleted in the working tree
    }
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    writeFileSync(join(clone, file), text);
  }
  commitAll(clone, 'the checkout');

  // "Your own server": a repository whose build output is dist/server.js (the bundled example,
  // v2) with its dependencies installed, and the delta artifact of its last release beside it.
  server = join(work, 'server');
  mkdirSync(join(server, 'dist'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(server, 'node_modules'));
  for (const [from, to] of [['v2.mjs', 'dist/server.js'], ['serve.mjs', 'dist/serve.mjs'], ['v2.mjs', 'server.mjs'], ['serve.mjs', 'serve.mjs']] as const) {
    copyFileSync(join(ROOT, 'examples/inventory', from), join(server, to));
  }
  writeFileSync(join(server, 'dist/package.json'), '{ "type": "module" }\n');
  const artifact = await shell(`npx mcp-contract-guard@${inject('version')} check --command 'node server.mjs' --lockfile ${JSON.stringify(join(ROOT, 'examples/inventory/mcp-contracts.lock.json'))} --artifact contract-deltas.json`, server);
  expect(artifact.code, artifact.stderr).toBe(1);
});

afterAll(() => removeScratch());

describe('the runnable blocks of the README and docs/', () => {
  it('are where the issue asks for them: the quick start, the example, the proxy snippet', () => {
    const where = BLOCKS.map((b) => `${b.file} ${b.kind}`);
    expect(where).toContain('README.md shell');
    expect(where).toContain('README.md client-config');
    expect(where).toContain('docs/runtime.md shell');
    expect(where).toContain('docs/proxy.md client-config');
    expect(BLOCKS.filter((b) => b.output !== undefined).length).toBeGreaterThanOrEqual(4);
  });

  let page = '';
  for (const block of BLOCKS) {
    const title = `${block.file}:${block.line} ${block.kind === 'client-config' ? 'client configuration' : firstLine(block.code)}`;
    it(title, async () => {
      if (block.file !== page) {
        // Each page starts from the clone as the README left it (installed, nothing else).
        if (page !== '' && page !== 'README.md') execFileSync('git', ['clean', '-fdq'], { cwd: clone });
        page = block.file;
      }
      if (block.kind === 'client-config') await launchAsAClient(block);
      else await runShell(block);
    });
  }
});

function firstLine(code: string): string {
  const line = code.split('\n')[0] ?? '';
  return line.length > 90 ? `${line.slice(0, 87)}…` : line;
}

async function runShell(block: RunnableBlock): Promise<void> {
  expect(block.lang, `${block.file}:${block.line}`).toBe('sh');
  const lines = block.code.split('\n');
  const script = (block.attributes.lines === undefined ? lines : lines.slice(0, Number(block.attributes.lines))).join('\n');
  const cwd = block.attributes.in === 'server' ? server : block.attributes.in === undefined ? clone : undefined;
  expect(cwd, `${block.file}:${block.line}: in=${block.attributes.in} is no known place`).toBeDefined();
  const result = await shell(script, cwd as string);
  const where = `${block.file}:${block.line}\n--- stdout\n${result.stdout.slice(-3000)}\n--- stderr\n${result.stderr.slice(-3000)}`;
  expect(result.code, where).toBe(Number(block.attributes.exit ?? 0));
  if (block.output !== undefined) expect(result.stdout.replace(/\n$/, ''), where).toBe(block.output);
}

/**
 * A client's configuration, launched as the client launches it: each server's `command` and
 * `args`, its `root` folder standing for the scratch server repository (its artifact and
 * server.mjs are there); then the old-shaped call must come back explained.
 */
async function launchAsAClient(block: RunnableBlock): Promise<void> {
  const config = JSON.parse(block.code) as { mcpServers?: Record<string, { command: string; args: string[] }>; command?: string; args?: string[] };
  const entries = config.mcpServers !== undefined ? Object.values(config.mcpServers) : [config as { command: string; args: string[] }];
  const root = block.attributes.root;
  expect(root, `${block.file}:${block.line} needs root=`).toBeDefined();
  for (const entry of entries) {
    const args = entry.args.map((arg) => arg.split(root as string).join(`${server}/`));
    const client = new Client({ name: 'docs-test', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: entry.command, args, env: strangerEnv(), cwd: scratch('docs-client-'), stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await client.connect(transport).catch((error: Error) => {
      throw new Error(`${block.file}:${block.line}: ${entry.command} ${args.join(' ')} did not start (${error.message}); its stderr:\n${stderr}`);
    });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('create_order');
      const result = await client.callTool({ name: 'create_order', arguments: V1_ARGUMENTS });
      const text = (result.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('\n');
      expect(result.isError).toBe(true);
      expect(text).toContain('<delta severity="BREAKING" kind="required-property-added" field="currency"/>');
    } finally {
      await client.close();
    }
  }
}
