/**
 * A rule is one unit: its id is spelled in its record (src/rules) and in the detector that
 * reports it (src/diff), nowhere else. Renderers, the changelog, the runtime, the proxy and the
 * Action read the rule's fields (or, for the runtime, the delta's own fields), so changing or
 * adding a rule never means hunting for its id across the code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RULE_KINDS } from '../../src/rules/index.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
/** Where ids belong: the rules, and the detectors that name the rule a change falls under. */
const HOMES = ['rules/', 'diff/'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('rule ids', () => {
  it('are spelled only in src/rules and the detectors (src/diff)', () => {
    const outside = sources(SRC).filter((path) => !HOMES.some((home) => relative(SRC, path).startsWith(home)));
    expect(outside.length).toBeGreaterThan(50);
    const found: string[] = [];
    for (const path of outside) {
      const text = readFileSync(path, 'utf8');
      for (const id of RULE_KINDS) {
        // Quoted as a string or a code span, in code or in a comment.
        for (const quote of ["'", '"', '`']) if (text.includes(`${quote}${id}${quote}`)) found.push(`${relative(SRC, path)}: ${id}`);
      }
    }
    expect(found).toEqual([]);
  });
});
