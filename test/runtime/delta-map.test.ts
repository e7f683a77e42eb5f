import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DeltaArtifactError, loadDeltaMap } from '../../src/runtime/index.js';
import { delta, report } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'mcg-runtime-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const sample = report({
  create_order: [delta({ field: 'inputSchema.properties.currency', kind: 'required-property-added', current: { type: 'string' } })],
  list_orders: [],
});

describe('loadDeltaMap', () => {
  it('reads a file path, a file: URL, JSON text and a parsed object alike', () => {
    const path = write('ok.json', JSON.stringify(sample));
    for (const input of [path, pathToFileURL(path), JSON.stringify(sample), sample]) {
      const map = loadDeltaMap(input);
      expect([...map.keys()]).toEqual(['create_order', 'list_orders']);
      expect(map.get('create_order')?.deltas[0]?.current).toEqual({ type: 'string' });
    }
  });

  it('reads past a byte order mark (an artifact saved by a Windows editor), in a file and in text', () => {
    const text = `\uFEFF${JSON.stringify(sample)}`;
    for (const input of [write('bom.json', text), text]) expect([...loadDeltaMap(input).keys()]).toEqual(['create_order', 'list_orders']);
  });

  it('returns a deeply frozen map', () => {
    const map = loadDeltaMap(JSON.stringify(sample));
    const entry = map.get('create_order')!;
    expect(Object.isFrozen(entry)).toBe(true);
    expect(Object.isFrozen(entry.deltas)).toBe(true);
    expect(Object.isFrozen(entry.deltas[0])).toBe(true);
    expect(Object.isFrozen(entry.deltas[0]?.current)).toBe(true);
    const mutable = map as Map<string, unknown>;
    expect(() => mutable.set('x', {})).toThrow(TypeError);
    expect(() => mutable.delete('create_order')).toThrow(TypeError);
    expect(() => mutable.clear()).toThrow(TypeError);
    expect(map.size).toBe(2);
  });

  it('does not freeze the caller’s object when given one', () => {
    const input = report({ t: [delta({ field: 'a', current: { type: 'string' } })] });
    loadDeltaMap(input);
    expect(Object.isFrozen(input.tools.t?.deltas[0]?.current)).toBe(false);
  });

  it('gives an empty map for a missing file only when optional', () => {
    const missing = join(dir, 'nope.json');
    expect(loadDeltaMap(missing, { optional: true }).size).toBe(0);
    expect(() => loadDeltaMap(missing)).toThrow(/nope\.json: cannot be read \(file not found\)/);
  });

  it('still throws on a corrupt file when optional', () => {
    const path = write('corrupt.json', '{"version": 1, "tools": ');
    expect(() => loadDeltaMap(path, { optional: true })).toThrow(DeltaArtifactError);
    expect(() => loadDeltaMap(path, { optional: true })).toThrow(/corrupt\.json: is not valid JSON/);
  });

  it('rejects an unknown version, naming the file and both versions', () => {
    const path = write('v2.json', JSON.stringify({ ...sample, version: 2 }));
    let caught: unknown;
    try {
      loadDeltaMap(path);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DeltaArtifactError);
    const error = caught as DeltaArtifactError;
    expect(error.source).toBe(path);
    expect(error.problem).toMatch(/unknown version 2; this mcp-contract-guard reads version 1/);
    expect(error.message).toContain(path);
  });

  it.each([
    ['not an object', '[]', /expected a JSON object \(a diff report\), got an array/],
    ['no version', '{"tools":{}}', /has no "version"/],
    ['tools missing', '{"version":1}', /"tools" must be an object of entries, got nothing/],
    ['entry not an object', '{"version":1,"tools":{"t":3}}', /tools\["t"\] must be an object, got a number/],
    ['deltas missing', '{"version":1,"tools":{"t":{"maxSeverity":null}}}', /tools\["t"\]\.deltas must be an array/],
    ['bad maxSeverity', '{"version":1,"tools":{"t":{"maxSeverity":"HIGH","deltas":[]}}}', /maxSeverity must be null or one of BREAKING/],
    ['bad section', '{"version":1,"tools":{},"prompts":[]}', /"prompts" must be an object of entries, got an array/],
  ])('rejects %s', (_name, json, problem) => {
    expect(() => loadDeltaMap(json)).toThrow(problem);
  });

  it('names the exact delta and key that is malformed', () => {
    const bad = (patch: Record<string, unknown>) =>
      JSON.stringify(report({ t: [delta({ field: 'a' }), { ...delta({ field: 'b' }), ...patch } as never] }));
    expect(() => loadDeltaMap(bad({ severity: 'HIGH' }))).toThrow(/tools\["t"\]\.deltas\[1\]\.severity must be one of BREAKING, RISKY, SAFE, COSMETIC, got "HIGH"/);
    expect(() => loadDeltaMap(bad({ field: 7 }))).toThrow(/deltas\[1\]\.field must be a string, got 7/);
    expect(() => loadDeltaMap(bad({ action: 3 }))).toThrow(/deltas\[1\]\.action must be a string or null/);
    expect(() => loadDeltaMap(bad({ hint: false }))).toThrow(/deltas\[1\]\.hint must be a string when present/);
    const noCurrent = JSON.parse(bad({})) as { tools: { t: { deltas: Record<string, unknown>[] } } };
    delete noCurrent.tools.t.deltas[1]?.current;
    expect(() => loadDeltaMap(noCurrent)).toThrow(/deltas\[1\] has no "current"/);
  });

  it('keeps the release the artifact records (frozen), and an artifact without one has none', () => {
    const dated = loadDeltaMap({ ...sample, release: { version: '2.0.0', date: '2025-06-01' } });
    expect(dated.release).toEqual({ version: '2.0.0', date: '2025-06-01' });
    expect(Object.isFrozen(dated.release)).toBe(true);
    expect(loadDeltaMap(sample).release).toBeUndefined();
  });

  it('refuses a release it cannot count a deprecation window from, at start-up', () => {
    for (const [release, problem] of [
      [{ date: '2025-02-30' }, 'release.date must be a day as YYYY-MM-DD when present, got "2025-02-30"'],
      [{ date: 20250601 }, 'release.date must be a day as YYYY-MM-DD when present, got 20250601'],
      [{ version: '' }, 'release.version must be a version of 1 to 200 characters when present, got ""'],
      ['2025-06-01', 'release must be { version?, date? }, got a string'],
    ] as const) {
      expect(() => loadDeltaMap({ ...sample, release })).toThrow(problem);
    }
  });

  it('keeps the optional delta fields and drops unknown ones', () => {
    const map = loadDeltaMap(report({ t: [{ ...delta({ field: 'a', hint: 'h', renamedTo: 'b' }), extra: 1 } as never] }));
    const read = map.get('t')?.deltas[0] as unknown as Record<string, unknown>;
    expect(read.hint).toBe('h');
    expect(read.renamedTo).toBe('b');
    expect('extra' in read).toBe(false);
  });

  it('refuses an artifact nested deeper than any real one, or larger than the cap, with a message (never a crash)', () => {
    const deep = `{"version":1,"tools":{"t":{"maxSeverity":"BREAKING","deltas":[{"severity":"BREAKING","kind":"type-changed","field":"x","action":null,"message":"m","fingerprint":"f","current":null,"previous":${'['.repeat(100_000)}${']'.repeat(100_000)}}]}}}`;
    expect(() => loadDeltaMap(deep)).toThrow(DeltaArtifactError);
    expect(() => loadDeltaMap(deep)).toThrow(/nests over 10,000 levels deep; the limit is 64/);
    const path = write('big.json', JSON.stringify(sample));
    expect(() => loadDeltaMap(path, { maxLength: 100 })).toThrow(/the limit is about 100 characters|the limit is 100/);
    // Within the limits, both are options: a server that needs more says so.
    expect(loadDeltaMap(path, { maxLength: 10_000_000, maxDepth: 200 }).size).toBeGreaterThan(0);
  });

  it('reads tools named like Object.prototype members as tools', () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    const text = `{"version":1,"tools":{${names.map((n) => `${JSON.stringify(n)}:{"maxSeverity":"BREAKING","deltas":[{"severity":"BREAKING","kind":"tool-removed","field":"","action":null,"message":"gone","fingerprint":"0123456789abcdef","previous":null,"current":null}]}`).join(',')}}}`;
    const map = loadDeltaMap(text);
    expect([...map.keys()].sort()).toEqual([...names].sort());
    expect(map.get('__proto__')?.deltas[0]?.message).toBe('gone');
  });
});
