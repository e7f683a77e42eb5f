/**
 * The lockfile's bytes are a format users commit: a lockfile written by one release must verify,
 * byte for byte, under the next. Normalization and rendering are tuned for speed (issue 26), so
 * these pin what they write for every real-world capture, for the synthetic servers the
 * benchmarks use, and, in full, for two real servers (a changed byte there shows where).
 *
 * The golden digests were taken from the code before that tuning. If a change to them is
 * intended (a new normalization rule), it is a change of format: existing lockfiles stop
 * matching, and the release notes must say so.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderLockfile } from '../../src/contract/lockfile.js';
import { normalizeCapture } from '../../src/contract/normalize.js';
import type { JsonObject } from '../../src/contract/model.js';
// @ts-expect-error: a plain-JavaScript module of the benchmarks, without type declarations.
import { syntheticRelease } from '../../bench/synthetic.mjs';
import { loadDump } from '../diff/helpers.js';

const REAL_WORLD = new URL('../fixtures/real-world/', import.meta.url);
const GOLDEN = new URL('../fixtures/real-world/expected/lockfile-digests.json', import.meta.url);
const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, string>;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const fixtures = readdirSync(REAL_WORLD)
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.slice(0, -'.json'.length))
  .sort();

function syntheticLockfile(tools: JsonObject[]): string {
  return renderLockfile(normalizeCapture({ server: { name: 'synthetic' }, protocolVersion: '', era: 'legacy', tools, prompts: [], resources: [], resourceTemplates: [] }).contracts);
}

describe('lockfile bytes', () => {
  it('of every real-world capture are those the format has always written', () => {
    const digests = Object.fromEntries(fixtures.map((name) => [name, sha256(renderLockfile(loadDump(name)))]));
    // Every capture is pinned: a fixture added later needs its digest added here.
    expect(Object.keys(golden).filter((name) => !name.startsWith('synthetic'))).toEqual(fixtures);
    for (const name of fixtures) expect(digests[name], name).toBe(golden[name]);
  });

  it('of the benchmarks\' synthetic servers (1,000 tools, before and after a release) are unchanged', () => {
    const { before, after } = syntheticRelease(1000, 100) as { before: JsonObject[]; after: JsonObject[] };
    expect(sha256(syntheticLockfile(before))).toBe(golden['synthetic 1000 before']);
    expect(sha256(syntheticLockfile(after))).toBe(golden['synthetic 1000 after']);
  });

  // Two servers whose schemas exercise the rewrites: $defs and $ref, integer bounds, unions of
  // constants (shipping, pydantic); zod 4's anyOf and propertyNames (playwright).
  for (const name of ['shipping@0.2.0', 'playwright@0.0.83']) {
    it(`of ${name}, in full`, () => {
      expect(renderLockfile(loadDump(name))).toBe(readFileSync(new URL(`../fixtures/real-world/expected/${name}.lock.json`, import.meta.url), 'utf8'));
    });
  }
});
