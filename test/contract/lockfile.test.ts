import { describe, expect, it } from 'vitest';
import { LockfileError, parseLockfile, renderLockfile } from '../../src/contract/lockfile.js';
import type { RawCapture } from '../../src/contract/model.js';
import { normalizeCapture } from '../../src/contract/normalize.js';

const raw: RawCapture = {
  server: { name: 'demo', version: '1.2.3' },
  protocolVersion: '2025-11-25',
  era: 'legacy',
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
  it('is canonical JSON with digests and a version, and no timestamp or server version', () => {
    const text = renderLockfile(contracts);
    expect(text.endsWith('}\n')).toBe(true);
    const data = JSON.parse(text);
    expect(Object.keys(data)).toEqual(['digest', 'generator', 'lockfileVersion', 'prompts', 'resourceTemplates', 'resources', 'server', 'tools']);
    expect(data.lockfileVersion).toBe(1);
    expect(data.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Object.keys(data.tools)).toEqual(['a', 'b']);
    expect(data.tools.a.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(data.tools.a.dialects).toEqual({ inputSchema: 'http://json-schema.org/draft-07/schema#' });
    expect(text).not.toContain('1.2.3');
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
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
    expect(problemOf(text.replace('"lockfileVersion": 1', '"lockfileVersion": 7'))).toBe(
      'unknown-version: lock.json has lockfile version 7, but this mcp-contract-guard reads version 1: upgrade mcp-contract-guard.',
    );
    expect(problemOf('{"tools": []}')).toBe('malformed: lock.json is not an mcp-contract-guard lockfile: it has no "lockfileVersion".');
  });
});
