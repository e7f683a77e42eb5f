/** The pattern prover: sound (never claims a containment that fails) on what it reads, silent on the rest. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { patternContains } from '../../src/diff/patterns.js';

describe('patternContains(current, previous)', () => {
  it.each([
    ['^[A-Z0-9]{3}-\\d{4}$', '^[A-Z]{3}-\\d{4}$', 'a character class widened'],
    ['^[A-Za-z]{2}$', '^[A-Z]{2}$', 'a case added'],
    ['^([A-Z0-9]{3}-\\d{4}|LEGACY-\\d+)$', '^[A-Z0-9]{3}-\\d{4}$', 'an alternative added'],
    ['^(?:[A-Z]{2}\\d{9}[A-Z]{2}|\\d{12})$', '^[A-Z]{2}\\d{9}[A-Z]{2}$', 'a non-capturing alternation'],
    ['^a{1,5}$', '^a{2,3}$', 'a wider repetition'],
    ['^\\w+$', '^[a-z_]+$', 'a class escape covering a class'],
    ['abc', '^abc$', 'anchors dropped'],
    ['^.*$', '^[a-z ]*$', 'the dot covers a class'],
    ['^[\\-.a-z]+$', '^[a-z.]+$', 'escaped punctuation'],
  ])('proves %s ⊇ %s (%s)', (current, previous) => {
    expect(patternContains(current, previous)).toBe(true);
  });

  it.each([
    ['^[A-Z]{3}$', '^[A-Z0-9]{3}$', 'a class narrowed'],
    ['^a{2,3}$', '^a{1,5}$', 'a narrower repetition'],
    ['^abc$', 'abc', 'anchors added'],
    ['^(a|b)c$', '^ac$', 'a group inside a sequence (not read)'],
    ['^\\bword$', '^word$', 'a word boundary (not read)'],
    ['^(a)\\1$', '^aa$', 'a backreference (not read)'],
    ['^[A-Z]{3}-?$', '^[A-Z]{3}$', 'a different number of atoms (not proved)'],
    ['^.*$', '^[^\\n]*$', 'the dot excludes \\r, which [^\\n] admits'],
  ])('does not claim %s ⊇ %s (%s)', (current, previous) => {
    expect(patternContains(current, previous)).toBe(false);
  });

  it('never claims a containment that a string disproves', () => {
    const atom = fc.constantFrom('a', 'b', '[ab]', '[a-c]', '\\d', '[0-5]', '.', 'x');
    const quantifier = fc.constantFrom('', '?', '+', '*', '{2}', '{1,3}');
    const pattern = fc.tuple(fc.boolean(), fc.array(fc.tuple(atom, quantifier), { minLength: 1, maxLength: 4 }), fc.boolean()).map(([start, atoms, end]) => `${start ? '^' : ''}${atoms.map(([a, q]) => a + q).join('')}${end ? '$' : ''}`);
    fc.assert(
      fc.property(pattern, pattern, fc.array(fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'x', '1', '7', 'z', '\n') }), { minLength: 30, maxLength: 30 }), (current, previous, samples) => {
        if (!patternContains(current, previous)) return;
        const [cur, prev] = [new RegExp(current), new RegExp(previous)];
        for (const s of samples) if (prev.test(s)) expect(cur.test(s), `${JSON.stringify(s)} matches ${previous} but not ${current}`).toBe(true);
      }),
      { numRuns: 3_000 },
    );
  });
});
