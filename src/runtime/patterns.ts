/**
 * Regular expressions from a server (a schema's `pattern`, `patternProperties`) or a client run
 * here on RE2 (re2js, a JavaScript port: no native addon, no WebAssembly), whose matching time
 * is linear in the text, never on JavaScript's backtracking engine: `^(a+)+c$` against forty
 * `a`s takes JavaScript hours, and a proxy or a server that ran it would answer nothing else
 * meanwhile. A pattern RE2 cannot run in linear time (a backreference, a lookaround) is refused,
 * and the caller says it was not checked, rather than run it.
 *
 * JSON Schema patterns are ECMA-262 with the `u` flag; re2js translates that syntax (named
 * groups, `\u{…}`, `[^]`). The meanings that differ are narrow: `\s` is ASCII whitespace in
 * RE2 (ECMA-262 adds the Unicode spaces), and `.` excludes only `\n` (ECMA-262 also `\r`,
 * U+2028 and U+2029).
 *
 * re2js is loaded on the first pattern, not on import: the runtime goes into every production
 * server, and most never meet a pattern on an error path.
 */
import { createRequire } from 'node:module';

type Re2js = typeof import('re2js');

/** What a compiled pattern can do: tell whether it matches somewhere in a text. */
export interface LinearPattern {
  test(text: string): boolean;
  /** `/pattern/`, as a RegExp shows itself: ajv keys its compiled patterns by it. */
  toString(): string;
}

export type PatternVerdict = { readonly pattern: LinearPattern } | { readonly refused: string };

/** Patterns kept compiled (a proxy sees the same few on every call); past it the oldest goes. */
const CACHE_SIZE = 512;
/** Longer patterns are refused unread: no real schema needs one, and compiling is not free. */
const MAX_PATTERN_LENGTH = 10_000;

let re2js: Re2js | undefined;
const cache = new Map<string, PatternVerdict>();

function engine(): Re2js {
  re2js ??= createRequire(import.meta.url)('re2js') as Re2js;
  return re2js;
}

/** `pattern` compiled for linear-time matching, or why RE2 refuses it (never run then). */
export function linearPattern(pattern: string): PatternVerdict {
  const cached = cache.get(pattern);
  if (cached !== undefined) {
    // Refreshed: the cache drops the least recently used.
    cache.delete(pattern);
    cache.set(pattern, cached);
    return cached;
  }
  const verdict = compile(pattern);
  cache.set(pattern, verdict);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return verdict;
}

function compile(pattern: string): PatternVerdict {
  if (pattern.length > MAX_PATTERN_LENGTH) return { refused: `it is longer than ${MAX_PATTERN_LENGTH} characters` };
  const { RE2JS } = engine();
  try {
    const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
    return { pattern: { test: (text) => compiled.test(text), toString: () => `/${pattern}/` } };
  } catch (error) {
    return { refused: refusalOf(error) };
  }
}

/** Why RE2 refused a pattern, in words: the construct it has no linear-time way to run, or the syntax error. */
function refusalOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/\(\?[=!]|\(\?<[=!]/.test(message) || /named capture: `\(\?<[=!]/.test(message)) return 'a lookaround assertion has no linear-time match';
  if (/invalid escape sequence: `\\[1-9]/.test(message) || /\\k</.test(message)) return 'a backreference has no linear-time match';
  return message.replace(/^error parsing regexp: /, '');
}
