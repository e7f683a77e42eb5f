/**
 * Issue 22 through the proxy, as processes, driven by an SDK Client:
 * - one explanation for both: the same old-shaped (and plain wrong) calls get the same
 *   `<field>` lines from a TypeScript server healing itself (withSelfHealing, zod 3 and 4, the
 *   newest SDK and 1.10.2) and from the proxy in front of the same server left bare;
 * - `--renames route` serves old-shaped calls under the new names with a notice, logs them as
 *   routed, and explains once the window is over (`--rename-window-days 0`);
 * - a real FastMCP server (Python) behind the proxy, its artifact written by the CLI as a user
 *   would (`lock`, then `check --artifact --released-at`).
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTICE_META_KEY } from '../../src/runtime/index.js';
import { cli } from '../helpers/cli.js';
import { fixture } from '../helpers/processes.js';
import { findPython } from '../helpers/python.js';
import { renamedToolsReport } from '../helpers/renamed-tools.js';
import { connect, jsonLines, proxyArgs, scratch, textOf, type Connected } from './helpers.js';

const files = scratch();
afterAll(() => files.remove());
const SERVER = fixture('renamed-tools.mjs');
const fieldLines = (text: string) => [...text.matchAll(/<field name="[^"]*">[^<]*<\/field>/g)].map((m) => m[0]);

/** The artifact the diff writes for the TypeScript fixture's two releases, released `date`. */
async function writeTsArtifact(path: string, date: string): Promise<string> {
  writeFileSync(path, JSON.stringify(await renamedToolsReport(date)));
  return path;
}

const TODAY = new Date().toISOString().slice(0, 10);
let artifact: string;
beforeAll(async () => {
  artifact = await writeTsArtifact(files.file('deltas.json'), TODAY);
});

/** Old-shaped calls, and calls wrong for other reasons, of the fixture's release 2. */
const CALLS = [
  { name: 'browser_evaluate', arguments: { function: '() => 1', ref: 'e1' } },
  { name: 'browser_fill_form', arguments: { fields: [{ name: 'email', ref: 'e2', value: 7 }] } },
  { name: 'search', arguments: { query: 'shoes', days: 7 } },
  { name: 'report', arguments: { range: 'month' } },
  { name: 'check_stock', arguments: { sku: '' } },
  { name: 'report', arguments: { period: 'month' } },
  { name: 'search', arguments: {} },
];

async function lines(connected: Connected): Promise<string[][]> {
  const out = [];
  for (const call of CALLS) {
    const result = await connected.client.callTool(call);
    expect(result.isError, `${call.name} ${JSON.stringify(call.arguments)}`).toBe(true);
    out.push(fieldLines(textOf(result)));
  }
  return out;
}

describe('one explanation for both: the runtime inside the server and the proxy in front of it', () => {
  for (const [label, flags] of [
    ['zod 4, newest SDK', ['--zod', '4']],
    ['zod 3, newest SDK', ['--zod', '3']],
    ['zod 3, SDK 1.10.2', ['--sdk', 'oldest']],
  ] as const) {
    it(`give the same <field> lines for the same calls (${label})`, async () => {
      const [runtime, proxied] = await Promise.all([
        connect(process.execPath, [SERVER, ...flags, '--deltas', artifact]),
        connect(process.execPath, proxyArgs(['--artifact', artifact], [process.execPath, SERVER, ...flags])),
      ]);
      try {
        const inside = await lines(runtime);
        expect(await lines(proxied)).toEqual(inside);
        // And what they say: every fact once, renamed-to with what was sent and what is expected.
        expect(inside).toEqual([
          ['<field name="ref">Renamed to "target". You sent: "e1". Expected: string.</field>'],
          ['<field name="fields[0].ref">Renamed to "target". You sent: "e2". Expected: string.</field>', '<field name="fields[0].value">Wrong type. You sent: 7. Expected: string.</field>'],
          ['<field name="days">No longer a field of this tool (removed in 2.0.0). You sent: 7. Remove it.</field>'],
          ['<field name="range">Renamed to "period". You sent: "month". Expected: string, one of "day", "week".</field>'],
          ['<field name="sku">Too short. You sent: "". Expected: string with at least 1 character.</field>'],
          ['<field name="period">Not an allowed value. You sent: "month". Expected: string, one of "day", "week".</field>'],
          ['<field name="query">Missing. Expected: string.</field>'],
        ]);
      } finally {
        await Promise.all([runtime.close(), proxied.close()]);
      }
    });
  }
});

describe('--renames route through the proxy', () => {
  it('serves old-shaped calls under the new names on the first try, with the notice, and logs them as routed', async () => {
    const log = files.file('route.jsonl');
    const proxied = await connect(process.execPath, proxyArgs(['--artifact', artifact, '--renames', 'route', '--log', log], [process.execPath, SERVER]));
    try {
      const evaluate = await proxied.client.callTool({ name: 'browser_evaluate', arguments: { function: '() => 1', ref: 'e1' } });
      expect(evaluate.isError).toBeFalsy();
      const content = evaluate.content as Array<{ text: string }>;
      // What the handler was given, then the notice.
      expect(content[0]!.text).toBe('{"function":"() => 1","target":"e1"}');
      expect(content[1]!.text).toContain('<message>The argument "ref" was renamed to "target" in 2.0.0: it was passed as "target".</message>');
      expect(evaluate._meta?.[NOTICE_META_KEY]).toMatchObject({ arguments: [{ from: 'ref', to: 'target' }], release: { version: '2.0.0', date: TODAY } });
      const stock = await proxied.client.callTool({ name: 'get_stock', arguments: { sku: 'A-1' } });
      expect((stock.content as Array<{ text: string }>)[0]!.text).toBe('{"sku":"A-1"}');
      const search = await proxied.client.callTool({ name: 'search', arguments: { query: 'shoes', days: 7 } });
      expect((search.content as Array<{ text: string }>)[0]!.text).toBe('{"query":"shoes"}');
      expect(textOf(search)).toContain('"days" was ignored: the tool no longer takes it in 2.0.0 (it was: Only results of the last N days).');
      // A routed call that is still wrong is explained, and still told where it went.
      const wrong = await proxied.client.callTool({ name: 'browser_fill_form', arguments: { fields: [{ name: 'email', ref: 'e2', value: 7 }] } });
      expect(fieldLines(textOf(wrong))).toEqual(['<field name="fields[0].value">Wrong type. You sent: 7. Expected: string.</field>']);
      expect(textOf(wrong)).toContain('<message>The argument "fields[].ref" was renamed to "fields[].target" in 2.0.0: it was passed as "target".</message>');
      expect(jsonLines(log).map((line) => [line.tool, line.outcome])).toEqual([
        ['browser_evaluate', 'routed'],
        ['check_stock', 'routed'],
        ['search', 'routed'],
        // 7 for a string is one a lenient server coerces: the proxy lets the server decide, then explains its refusal.
        ['browser_fill_form', 'explained'],
      ]);
    } finally {
      await proxied.close();
    }
  });

  it('explains instead once the deprecation window is over', async () => {
    const proxied = await connect(process.execPath, proxyArgs(['--artifact', artifact, '--renames', 'route', '--rename-window-days', '0'], [process.execPath, SERVER]));
    try {
      expect(fieldLines(textOf(await proxied.client.callTool({ name: 'browser_evaluate', arguments: { function: 'f', ref: 'e1' } })))).toEqual([
        '<field name="ref">Renamed to "target". You sent: "e1". Expected: string.</field>',
      ]);
      expect(textOf(await proxied.client.callTool({ name: 'get_stock', arguments: { sku: 'A-1' } }))).toContain('The tool "get_stock" was renamed to "check_stock".');
    } finally {
      await proxied.close();
    }
  });

  it('warns at start-up when it routes by an artifact without a release date, and refuses bad flags', async () => {
    const undated = files.file('undated.json');
    writeFileSync(undated, JSON.stringify({ ...JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(artifact, 'utf8'))), release: undefined }));
    const proxied = await connect(process.execPath, proxyArgs(['--artifact', undated, '--renames', 'route'], [process.execPath, SERVER]));
    try {
      expect((await proxied.client.callTool({ name: 'get_stock', arguments: { sku: 'A-1' } })).isError).toBeFalsy();
      expect(proxied.stderr()).toContain('the artifact records no release date, so renames are routed with no end to the deprecation window');
    } finally {
      await proxied.close();
    }
    expect((await cli(['proxy', '--renames', 'always', '--', 'node', SERVER])).stderr).toContain('--renames takes route or explain; got "always".');
    expect((await cli(['proxy', '--rename-window-days', '30', '--', 'node', SERVER])).stderr).toContain('--rename-window-days only applies with --renames route.');
  });
});

const { python, skip } = findPython();

describe.skipIf(skip !== '')(`a FastMCP server behind the proxy${skip ? ` — ${skip}` : ''}`, () => {
  const v1 = [python, fixture('fastmcp_renamed.py'), '--release', '1'];
  const v2 = [python, fixture('fastmcp_renamed.py')];
  const quote = (argv: string[]) => argv.map((part) => JSON.stringify(part)).join(' ');
  let pyArtifact: string;

  beforeAll(async () => {
    // As a user would: lock release 1, then check release 2 against it, writing the artifact.
    const lockfile = files.file('py.lock.json');
    pyArtifact = files.file('py-deltas.json');
    const locked = await cli(['lock', '--command', quote(v1), '--lockfile', lockfile, '--quiet']);
    expect(locked.code, locked.stderr).toBe(0);
    const checked = await cli(['check', '--command', quote(v2), '--lockfile', lockfile, '--artifact', pyArtifact, '--released-at', 'today', '--quiet']);
    expect(checked.code, checked.stderr).toBe(1);
  }, 120_000);

  it('explain: pydantic would refuse the old names too, but the proxy says what they became', async () => {
    const proxied = await connect(process.execPath, proxyArgs(['--artifact', pyArtifact], v2));
    try {
      expect(fieldLines(textOf(await proxied.client.callTool({ name: 'browser_evaluate', arguments: { function: 'f', ref: 'e1' } })))).toEqual([
        '<field name="ref">Renamed to "target". You sent: "e1". Expected: (string) or (null).</field>',
      ]);
      expect(fieldLines(textOf(await proxied.client.callTool({ name: 'search', arguments: { query: 'x', days: 7 } })))).toEqual([
        '<field name="days">No longer a field of this tool (removed in 2.0.0). You sent: 7. Remove it.</field>',
      ]);
    } finally {
      await proxied.close();
    }
  });

  it('route: the Python tool gets the new names and runs, and the result carries the notice', async () => {
    const proxied = await connect(process.execPath, proxyArgs(['--artifact', pyArtifact, '--renames', 'route'], v2));
    try {
      const evaluate = await proxied.client.callTool({ name: 'browser_evaluate', arguments: { function: 'f', ref: 'e1' } });
      expect(evaluate.isError).toBeFalsy();
      expect(JSON.parse((evaluate.content as Array<{ text: string }>)[0]!.text)).toEqual({ function: 'f', target: 'e1' });
      expect(evaluate._meta?.[NOTICE_META_KEY]).toMatchObject({ arguments: [{ from: 'ref', to: 'target' }] });
      const search = await proxied.client.callTool({ name: 'search', arguments: { query: 'x', days: 7 } });
      expect(JSON.parse((search.content as Array<{ text: string }>)[0]!.text)).toEqual({ query: 'x' });
      expect(textOf(search)).toContain('"days" was ignored: the tool no longer takes it in 2.0.0 (it was: Only results of the last N days).');
    } finally {
      await proxied.close();
    }
  });
});
