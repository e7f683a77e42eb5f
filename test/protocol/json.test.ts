/**
 * `sortedKeys` stands in for `Object.keys(record).sort()` on every node normalization builds
 * (an insertion sort for small records, issue 26): the canonical order of every lockfile and
 * digest rests on it giving exactly what `sort` gives, for any keys.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortedKeys } from '../../src/protocol/index.js';

describe('sortedKeys', () => {
  it('is Object.keys(record).sort(), for records small and large, whatever their keys', () => {
    // Keys as servers name things: words, integer-like keys (which JavaScript lists first), a
    // `__proto__`, characters below and above the ASCII letters, astral characters.
    const key = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('__proto__', 'constructor', '0', '1', '10', '2', '01', '-1', 'a b', 'a', 'A', 'é', '😀', ''),
      fc.nat({ max: 40 }).map(String),
      fc.string({ unit: 'grapheme', maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.uniqueArray(key, { maxLength: 40 }), (keys) => {
        const record = Object.create(null) as Record<string, number>;
        keys.forEach((k, i) => (record[k] = i));
        expect(sortedKeys(record)).toEqual(Object.keys(record).sort());
      }),
      { numRuns: 500 },
    );
  });
});
