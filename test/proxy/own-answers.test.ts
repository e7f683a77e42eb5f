/**
 * Only what the SDK or the proxy said is rewritten, by the runtime (withSelfHealing inside a
 * server process) and by the proxy alike: a tool that answers "Tool X not found" of itself is
 * answering its caller, even when the artifact says X was renamed, while the server still lists
 * X; and a tool without deltas gets the LLM-friendly <validation_error> by default
 * (`explainAll`), its SDK's own text with `explainAll: false` / `--no-explain-all`. Through
 * real processes: an SDK client, the built proxy or runtime, a server on the SDK.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers/processes.js';
import { delta } from '../runtime/helpers.js';
import { connect, proxyArgs, scratch, textOf, writeArtifact, type Connected } from './helpers.js';

const SERVER = [process.execPath, fixture('own-errors.mjs')];
const files = scratch();
/** The artifact says find_item and fetch_item were renamed (the server still lists both) and gone_item removed. */
const artifact = writeArtifact(files.file('deltas.json'), {
  find_item_v2: [delta({ field: 'name', kind: 'tool-renamed', message: 'Tool "find_item" was renamed to "find_item_v2".', renamedFrom: 'find_item', renamedTo: 'find_item_v2' })],
  fetch_item_v2: [delta({ field: 'name', kind: 'tool-renamed', message: 'Tool "fetch_item" was renamed to "fetch_item_v2".', renamedFrom: 'fetch_item', renamedTo: 'fetch_item_v2' })],
  gone_item: [delta({ field: '', kind: 'tool-removed', message: 'Tool "gone_item" was removed.' })],
});

const WAYS = {
  runtime: (more: string[]) => [...SERVER, '--heal', artifact, ...more],
  proxy: (more: string[]) => [process.execPath, ...proxyArgs(['--artifact', artifact, ...more], SERVER)],
  'proxy --no-validate': (more: string[]) => [process.execPath, ...proxyArgs(['--artifact', artifact, '--no-validate', ...more], SERVER)],
};
/** The runtime's option and the proxy's flag for explainAll off. */
const NOT_ALL = { runtime: '--no-explain-all', proxy: '--no-explain-all', 'proxy --no-validate': '--no-explain-all' };

let direct: Connected;
beforeAll(async () => {
  direct = await connect(SERVER[0] as string, SERVER.slice(1));
});
afterAll(async () => {
  await direct?.close();
  files.remove();
});

describe.each(Object.keys(WAYS) as (keyof typeof WAYS)[])('%s in front of tools whose own answers look like the SDK\'s', (way) => {
  let healed: Connected;
  let narrow: Connected;
  beforeAll(async () => {
    const [command, ...args] = WAYS[way]([]);
    healed = await connect(command as string, args);
    const [again, ...narrowArgs] = WAYS[way]([NOT_ALL[way]]);
    narrow = await connect(again as string, narrowArgs);
  });
  afterAll(async () => {
    await healed?.close();
    await narrow?.close();
  });

  it('passes a listed tool\'s own "Tool X not found" through untouched, though the artifact says X was renamed', async () => {
    for (const name of ['find_item', 'fetch_item']) {
      const call = { name, arguments: { sku: 'A-1' } };
      const expected = await direct.client.callTool(call);
      expect(textOf(expected)).toBe(`Tool ${name} not found`);
      expect(await healed.client.callTool(call)).toEqual(expected);
    }
  });

  it('still explains a call to a tool the server no longer lists', async () => {
    const result = await healed.client.callTool({ name: 'gone_item', arguments: { sku: 'A-1' } });
    expect(textOf(result)).toContain('<tool_error code="UNKNOWN_TOOL">\n<message>The tool "gone_item" was removed.</message>');
  });

  it('answers a tool without deltas with the <validation_error> by default, and with the SDK\'s own text under explainAll off', async () => {
    const call = { name: 'lookup', arguments: { sku: '' } };
    const explained = textOf(await healed.client.callTool(call));
    expect(explained).toContain('<validation_error tool="lookup">');
    expect(explained).toContain('<field name="sku">');
    expect(explained).not.toContain('<contract_awareness');
    const expected = await direct.client.callTool(call);
    expect(textOf(expected)).toMatch(/^MCP error -32602: Input validation error: Invalid arguments for tool lookup: /);
    expect(await narrow.client.callTool(call)).toEqual(expected);
    // A tool with deltas is still explained.
    expect(textOf(await narrow.client.callTool({ name: 'find_item_v2', arguments: {} }))).toContain('<validation_error tool="find_item_v2">');
  });
});
