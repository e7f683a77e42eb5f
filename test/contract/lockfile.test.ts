import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/contract/canonical.js';
import { canonicalJson, markCanonical } from '../../src/protocol/index.js';
import { LockfileError, parseLockfile, renderLockfile } from '../../src/contract/lockfile.js';
import type { RawCapture } from '../../src/contract/model.js';
import { normalizeCapture } from '../../src/contract/normalize.js';

const raw: RawCapture = {
  server: { name: 'demo', version: '1.2.3' },
  protocolVersion: '2025-11-25',
  era: 'legacy',
  instructions: 'Use read before write.',
  capabilities: { tools: { listChanged: true }, prompts: { listChanged: false }, logging: {} },
  clientCapabilities: ['sampling', 'roots', 'elicitation'],
  tools: [
    { name: 'b', inputSchema: { type: 'object', properties: { x: { type: 'string' } } } },
    { name: 'a', description: 'first', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' } },
  ],
  prompts: [{ name: 'p' }],
  resources: [],
  resourceTemplates: [],
};
const contracts = normalizeCapture(raw).contracts;

function problemOf(text: string): string {
  try {
    parseLockfile(text, 'lock.json');
  } catch (error) {
    if (error instanceof LockfileError) return `${error.problem}: ${error.message}`;
    throw error;
  }
  return 'ok';
}

describe('lockfile', () => {
  it('is canonical JSON with digests, a version and the server contract, and no timestamp', () => {
    const text = renderLockfile(contracts);
    expect(text.endsWith('}\n')).toBe(true);
    const data = JSON.parse(text);
    expect(Object.keys(data)).toEqual(['capture', 'digest', 'generator', 'lockfileVersion', 'prompts', 'resourceTemplates', 'resources', 'server', 'tools']);
    expect(data.lockfileVersion).toBe(2);
    // The release it was locked at, what it tells agents, what it promises (false flags are notation).
    expect(data.server).toEqual({ name: 'demo', version: '1.2.3', instructions: 'Use read before write.', capabilities: { logging: {}, prompts: {}, tools: { listChanged: true } } });
    expect(data.capture).toEqual({ clientCapabilities: ['elicitation', 'roots', 'sampling'] });
    expect(data.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Object.keys(data.tools)).toEqual(['a', 'b']);
    expect(data.tools.a.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(data.tools.a.dialects).toEqual({ inputSchema: 'http://json-schema.org/draft-07/schema#' });
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
  });

  it('writes in canonical order what nobody vouched for, and as it is what normalization built canonical', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [{ f: 3, e: 4 }] } })).toBe('{"a":{"c":[{"e":4,"f":3}],"d":2},"b":1}');
    // The vouch is trusted, not checked: that is what saves the walk (normalize.test.ts holds normalization to it).
    const vouched = { b: 1, a: 2 };
    markCanonical(vouched);
    expect(canonicalJson({ z: vouched, y: 0 })).toBe('{"y":0,"z":{"b":1,"a":2}}');
  });

  it('round-trips to the same contracts and the same bytes', () => {
    const text = renderLockfile(contracts);
    const parsed = parseLockfile(text, 'lock.json');
    expect(parsed).toEqual(contracts);
    expect(renderLockfile(parsed)).toBe(text);
  });

  it('reports a hand-edited contract as tampered, naming the entry', () => {
    const text = renderLockfile(contracts).replace('"first"', '"edited"');
    expect(problemOf(text)).toBe('tampered: lock.json was edited by hand: the digest of tools.a does not match its contract.');
  });

  it('reports an edit outside the entries through the whole-file digest', () => {
    const text = renderLockfile(contracts).replace('"name": "demo"', '"name": "other"');
    expect(problemOf(text)).toBe('tampered: lock.json was edited by hand: its whole-file digest does not match its content.');
  });

  it('reports truncation, unknown versions and foreign JSON', () => {
    const text = renderLockfile(contracts);
    expect(problemOf(text.slice(0, text.length / 2))).toMatch(/^malformed: lock.json is not valid JSON/);
    expect(problemOf(text.replace('"lockfileVersion": 2', '"lockfileVersion": 7'))).toBe(
      'unknown-version: lock.json has lockfile version 7, but this mcp-contract-guard reads version 2: upgrade mcp-contract-guard.',
    );
    expect(problemOf('{"tools": []}')).toBe('malformed: lock.json is not an mcp-contract-guard lockfile: it has no "lockfileVersion".');
  });

  it('still reads a format-1 lockfile, whose server contract is unknown (never "empty")', () => {
    // Format 1 recorded the server's name only; its whole-file digest covered just that header.
    const v1 = { ...contracts, server: { name: 'demo' }, serverContract: undefined, clientCapabilities: undefined };
    const text = renderLockfile(v1).replace('"lockfileVersion": 2', '"lockfileVersion": 1');
    const body = JSON.parse(text);
    const { digest: _digest, ...rest } = body;
    const manifest = { ...rest, tools: Object.fromEntries(Object.entries(rest.tools).map(([k, e]) => [k, { digest: (e as { digest: string }).digest, dialects: (e as { dialects?: unknown }).dialects }])), prompts: { p: { digest: rest.prompts.p.digest } }, resources: {}, resourceTemplates: {} };
    body.digest = sha256(canonicalJson(manifest));
    const parsed = parseLockfile(JSON.stringify(body), 'old.json');
    expect(parsed.server).toEqual({ name: 'demo' });
    expect(parsed.serverContract).toBeUndefined();
    expect(Object.keys(parsed.tools)).toEqual(['a', 'b']);
  });

  it('locks, verifies and round-trips entries named like Object.prototype members', () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    const hostile = normalizeCapture({ ...raw, tools: names.map((name) => ({ name, inputSchema: { type: 'object', properties: { __proto__: { type: 'string' } }, required: ['__proto__'] } })) }).contracts;
    expect(Object.keys(hostile.tools).sort()).toEqual([...names].sort());
    const text = renderLockfile(hostile);
    for (const name of names) expect(text).toContain(`"${name}": {`);
    const parsed = parseLockfile(text, 'lock.json', hostile);
    expect(Object.keys(parsed.tools).sort()).toEqual([...names].sort());
    expect(renderLockfile(parsed)).toBe(text);
    // The property named __proto__ is data, locked like any other property.
    expect(JSON.parse(text).tools.constructor.contract.inputSchema.required).toEqual(['__proto__']);
  });
});
