/**
 * Usage end to end, through real processes: an SDK `Client` calls the "shop" server through the
 * proxy (`--usage`, in front of a server written without an SDK) and through a `withSelfHealing`
 * server (its `usage` option); `usage summarize` merges both recordings; `diff v1 v2 --usage`
 * with one BREAKING change in a tool nobody called and one in a tool that was called blocks only
 * the called one. Then the CLI's answers to bad input.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiffReport } from '../../src/protocol/index.js';
import { cli } from '../helpers/cli.js';
import { ROOT } from '../helpers/processes.js';
import { CLI_COMMAND } from '../../src/version.js';

const V1 = resolve(ROOT, 'test/fixtures/usage/shop-v1.json');
const V2 = resolve(ROOT, 'test/fixtures/usage/shop-v2.json');
let dir: string;
const file = (name: string) => join(dir, name);

/** Lists the tools, searches `searches` times and adds to the cart `adds` times; never calls legacy_report. */
async function drive(command: string, args: string[], env: Record<string, string>, searches: number, adds: number): Promise<void> {
  const client = new Client({ name: 'usage-e2e', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, cwd: ROOT, env: { ...(process.env as Record<string, string>), ...env }, stderr: 'inherit' }));
  await client.listTools();
  for (let i = 0; i < searches; i++) await client.callTool({ name: 'search', arguments: { query: `user text ${i}`, sort: 'date' } });
  for (let i = 0; i < adds; i++) await client.callTool({ name: 'add_to_cart', arguments: { sku: `sku-${i}` } });
  await client.close();
}

async function waitForLines(path: string, tool: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const text = (() => {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        return '';
      }
    })();
    if (text.includes(`"tool":"${tool}"`)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${path} never recorded ${tool}`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcg-usage-e2e-'));
  // Behind the proxy: a server written without an SDK.
  await drive(process.execPath, [resolve(ROOT, 'lib/cli.js'), 'proxy', '--usage', file('proxy.jsonl'), '--', process.execPath, 'test/fixtures/servers/raw-shop.mjs'], {}, 5, 2);
  // Inside a TypeScript server: the runtime's recorder.
  await drive(process.execPath, ['test/fixtures/servers/sdk-shop.mjs'], { USAGE_FILE: file('runtime.jsonl') }, 3, 2);
  await waitForLines(file('runtime.jsonl'), 'add_to_cart');
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('recorded, summarized, read by the gate', () => {
  it('both recorders wrote the same kind of lines, and no text the client sent', () => {
    for (const name of ['proxy.jsonl', 'runtime.jsonl']) {
      const text = readFileSync(file(name), 'utf8');
      expect(text).toContain('"server":{"name":"shop","version":"1.0.0"}');
      expect(text).toContain('"inputSchema.properties.sort":{"\\"date\\"":');
      expect(text).not.toContain('user text');
    }
  });

  it('usage summarize merges both into one summary of the server', async () => {
    const result = await cli(['usage', 'summarize', file('proxy.jsonl'), file('runtime.jsonl'), '--out', file('usage.json')]);
    expect(result.stderr).toMatch(/summarized "shop": 12 calls of 3 tools from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d \(1 day\)/);
    expect(result.code).toBe(0);
    const summary = JSON.parse(readFileSync(file('usage.json'), 'utf8'));
    expect(summary).toMatchObject({ format: 'mcp-contract-guard/usage-summary', version: 1, server: { name: 'shop' }, calls: 12 });
    expect(summary.tools.search).toMatchObject({ calls: 8, listed: true, values: { 'inputSchema.properties.sort': { '"date"': 8 } } });
    expect(summary.tools.add_to_cart).toMatchObject({ calls: 4, listed: true });
    expect(summary.tools.legacy_report).toMatchObject({ calls: 0, listed: true });
  });

  it('diff v1 v2 --usage blocks only the break in the tool that was called', async () => {
    const result = await cli(['diff', V1, V2, '--usage', file('usage.json'), '--unused-days', '1']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('usage: breaks 33% of calls: 4 of 12 calls were of `add_to_cart`');
    expect(result.stdout).toContain('usage: unused for 1 day: 0 of 12 calls were of `legacy_report`');
    const verdict = result.stdout.slice(result.stdout.lastIndexOf('✗ '));
    expect(verdict).toMatch(/^✗ 1 change at or above --fail-on BREAKING \(1 BREAKING\)/);
    expect(verdict).toContain('BREAKING tool add_to_cart inputSchema.properties.currency');
    expect(verdict).not.toContain('legacy_report');

    const json = await cli(['diff', V1, V2, '--usage', file('usage.json'), '--unused-days', '1', '--format', 'json']);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as DiffReport;
    expect(report.tools.legacy_report?.deltas[0]).toMatchObject({ severity: 'RISKY', usage: { basis: 'tool', affected: 0, downgraded: true } });
    expect(report.tools.add_to_cart?.deltas[0]).toMatchObject({ severity: 'BREAKING', usage: { basis: 'tool', calls: 4, affected: 4 } });
    expect(report.usage).toMatchObject({ applied: true, server: 'shop', calls: 12, days: 1, unusedDays: 1, downgraded: 1 });
  });

  it('without --usage both block; with a window the summary does not cover, nothing is downgraded and it says why', async () => {
    const plain = await cli(['diff', V1, V2]);
    expect(plain.code).toBe(1);
    expect(plain.stdout).toMatch(/2 changes at or above --fail-on BREAKING/);
    const wide = await cli(['diff', V1, V2, '--usage', file('usage.json')]);
    expect(wide.code).toBe(1);
    expect(wide.stdout).toMatch(/2 changes at or above --fail-on BREAKING/);
    expect(wide.stderr).toMatch(/warning: --usage .* downgraded nothing: the usage summary starts on \d{4}-\d\d-\d\d, so it covers only 1 of the 30 days of the window/);
  });
});

describe('with the pinning proxy', () => {
  it('a call the pin holds back is counted as called, and refused: its tool is still in use', async () => {
    const pin = file('shop.lock.json');
    expect((await cli(['lock', '--file', V1, '--lockfile', pin, '--quiet'])).code).toBe(0);
    // Release 2 behind a pin of release 1: add_to_cart requires a currency now, so the pin holds it.
    const recording = file('pinned.jsonl');
    await drive(process.execPath, [resolve(ROOT, 'lib/cli.js'), 'proxy', '--lockfile', pin, '--on-drift', 'block', '--usage', recording, '--', process.execPath, 'test/fixtures/servers/raw-shop.mjs', 'v2'], {}, 2, 1);
    const lines = readFileSync(recording, 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
    expect(lines.find((line) => line.tool === 'add_to_cart')).toMatchObject({ calls: 1, refused: { error: 1 } });
    expect(lines.find((line) => line.tool === 'search')).toMatchObject({ calls: 2, refused: {} });
  });
});

describe('bad input', () => {
  it('a usage file that is not a summary, or is of a newer version, is an error that says so', async () => {
    writeFileSync(file('report.json'), JSON.stringify({ version: 1, summary: {}, tools: {} }));
    const notSummary = await cli(['diff', V1, V2, '--usage', file('report.json')]);
    expect(notSummary.code).toBe(2);
    expect(notSummary.stderr).toMatch(/--usage .*report\.json is not a usage summary this version can read: is not a usage summary/);
    expect(notSummary.stderr).toContain(`Write one with: ${CLI_COMMAND} usage summarize <recordings…> --out ${file('report.json')}`);
    const newer = readFileSync(file('usage.json'), 'utf8').replace('"version": 1', '"version": 7');
    writeFileSync(file('newer.json'), newer);
    const future = await cli(['diff', V1, V2, '--usage', file('newer.json')]);
    expect(future.code).toBe(2);
    expect(future.stderr).toMatch(/has version 7.*newer/);
    const missing = await cli(['diff', V1, V2, '--usage', file('nowhere.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/There is no usage summary at .*nowhere\.json\. Write one with: /);
    expect(missing.stderr).toContain(`Write one with: ${CLI_COMMAND} usage summarize`);
  });

  it('--unused-days needs --usage and a number of days', async () => {
    expect((await cli(['diff', V1, V2, '--unused-days', '5'])).stderr).toMatch(/--unused-days only applies with --usage/);
    expect((await cli(['diff', V1, V2, '--usage', file('usage.json'), '--unused-days', '0'])).stderr).toMatch(/--unused-days takes a whole number of days from 1 to 3650/);
  });

  it('summarize skips a damaged line and says where, refuses a newer record, and a file that holds no record', async () => {
    const lines = readFileSync(file('proxy.jsonl'), 'utf8');
    writeFileSync(file('damaged.jsonl'), `${lines}{"format":"mcp-contract-guard/usage","version":1,"type":"to\n`);
    const damaged = await cli(['usage', 'summarize', file('damaged.jsonl')]);
    expect(damaged.code).toBe(0);
    expect(damaged.stderr).toMatch(/warning: skipped 1 damaged line .*damaged\.jsonl line \d+ \(is not a JSON object/);
    expect(JSON.parse(damaged.stdout).records.skipped).toBe(1);

    writeFileSync(file('newer.jsonl'), `${lines}${lines.split('\n')[0]!.replace('"version":1', '"version":2')}\n`);
    const newer = await cli(['usage', 'summarize', file('newer.jsonl')]);
    expect(newer.code).toBe(2);
    expect(newer.stderr).toMatch(/newer\.jsonl line \d+ has version 2.*written by a newer one/);

    const none = await cli(['usage', 'summarize', V1]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/shop-v1\.json holds no usage record: its line 1 is not a JSON object \(a line cut short\?\)\. Is it a recording written by "proxy --usage"/);
    expect((await cli(['usage', 'merge', V1])).stderr).toMatch(/usage takes the subcommand "summarize"/);
  });
});
