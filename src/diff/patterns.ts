/**
 * Pattern containment: does every string the old `pattern` accepts still match the new one?
 * A general answer needs automata; releases change patterns in a few simple ways (a character
 * class widened under the same quantifiers, a quantifier relaxed, an alternative added), and
 * those are proved here by a sound, deliberately small check. Anything it cannot read (groups
 * inside a sequence, backreferences, lookarounds, word boundaries…) is "not proved", and the
 * change stays `pattern-changed`.
 *
 * The proof: both patterns parse into alternatives, each a sequence of atoms (a set of
 * characters repeated m to n times). The new pattern contains the old when each old
 * alternative is covered by a new one of the same length, atom by atom (a superset of
 * characters, a wider repetition range), and the new pattern is anchored at no more ends than
 * the old one (JSON Schema patterns search unless anchored).
 */

/** Sorted, disjoint, inclusive ranges of UTF-16 code units. */
type CharSet = ReadonlyArray<readonly [number, number]>;

interface Atom {
  chars: CharSet;
  min: number;
  max: number;
}

interface Pattern {
  start: boolean;
  end: boolean;
  alternatives: Atom[][];
}

const MAX_UNIT = 0xffff;
/** Patterns longer than this are not worth parsing: no real schema needs the proof for them. */
const MAX_PATTERN_LENGTH = 2_000;

/** True only when every string matching `previous` provably matches `current`. */
export function patternContains(current: string, previous: string): boolean {
  const p = parse(previous);
  const c = parse(current);
  if (p === null || c === null) return false;
  if ((c.start && !p.start) || (c.end && !p.end)) return false;
  return p.alternatives.every((old) => c.alternatives.some((wider) => covers(wider, old)));
}

function covers(wider: Atom[], narrower: Atom[]): boolean {
  if (wider.length !== narrower.length) return false;
  return narrower.every((atom, i) => {
    const other = wider[i] as Atom;
    return other.min <= atom.min && other.max >= atom.max && isSubset(atom.chars, other.chars);
  });
}

function isSubset(small: CharSet, big: CharSet): boolean {
  return small.every(([lo, hi]) => big.some(([blo, bhi]) => blo <= lo && hi <= bhi));
}

// ── parsing ─────────────────────────────────────────────────────────────────────────────

class Unsupported extends Error {}

function parse(source: string): Pattern | null {
  if (source.length > MAX_PATTERN_LENGTH) return null;
  try {
    let body = source;
    const start = body.startsWith('^');
    if (start) body = body.slice(1);
    const end = body.endsWith('$') && !body.endsWith('\\$');
    if (end) body = body.slice(0, -1);
    // `^(a|b)$` and `^(?:a|b)$`: one group around the whole body holds the alternatives.
    const inner = wholeGroup(body);
    const alternatives = splitTopLevel(inner ?? body).map(sequence);
    return { start, end, alternatives };
  } catch (error) {
    if (error instanceof Unsupported) return null;
    throw error;
  }
}

/** The body of a group spanning all of `body`, or null. */
function wholeGroup(body: string): string | null {
  const open = body.startsWith('(?:') ? 3 : body.startsWith('(') && !body.startsWith('(?') ? 1 : 0;
  if (open === 0 || !body.endsWith(')')) return null;
  let depth = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(body, i);
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0 && i !== body.length - 1) return null;
  }
  return body.slice(open, -1);
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(body, i);
    else if (c === '(' || c === ')') throw new Unsupported();
    else if (c === '|') {
      parts.push(body.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(body.slice(from));
  return parts;
}

/** Index of the `]` closing the class that opens at `open`. */
function classEnd(body: string, open: number): number {
  let i = open + 1;
  if (body[i] === '^') i++;
  if (body[i] === ']') i++; // a literal `]` first in the class
  for (; i < body.length; i++) {
    if (body[i] === '\\') i++;
    else if (body[i] === ']') return i;
  }
  throw new Unsupported();
}

function sequence(part: string): Atom[] {
  const atoms: Atom[] = [];
  let i = 0;
  while (i < part.length) {
    let chars: CharSet;
    const c = part[i] as string;
    if (c === '[') {
      const end = classEnd(part, i);
      chars = charClass(part.slice(i + 1, end));
      i = end + 1;
    } else if (c === '\\') {
      const escaped = escape(part, i + 1);
      chars = escaped.chars;
      i = escaped.next;
    } else if (c === '.') {
      chars = complement([[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]]);
      i++;
    } else if ('^$*+?{}()|'.includes(c)) {
      throw new Unsupported();
    } else {
      chars = single(c.charCodeAt(0));
      i++;
    }
    const quantified = quantifier(part, i);
    atoms.push({ chars, min: quantified.min, max: quantified.max });
    i = quantified.next;
  }
  return atoms;
}

function quantifier(part: string, at: number): { min: number; max: number; next: number } {
  const c = part[at];
  let out: { min: number; max: number; next: number };
  if (c === '*') out = { min: 0, max: Infinity, next: at + 1 };
  else if (c === '+') out = { min: 1, max: Infinity, next: at + 1 };
  else if (c === '?') out = { min: 0, max: 1, next: at + 1 };
  else if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(part.slice(at));
    if (!m) throw new Unsupported();
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    out = { min, max, next: at + m[0].length };
  } else return { min: 1, max: 1, next: at };
  // A lazy quantifier matches the same strings.
  if (part[out.next] === '?') out.next++;
  return out;
}

const DIGIT: CharSet = [[0x30, 0x39]];
const WORD: CharSet = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
const SPACE: CharSet = normalizeSet([[0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]]);

/** The escape at `at` (after the backslash): a class escape or one literal character. */
function escape(part: string, at: number): { chars: CharSet; next: number } {
  const c = part[at];
  if (c === undefined) throw new Unsupported();
  const classes: Record<string, CharSet> = { d: DIGIT, D: complement(DIGIT), w: WORD, W: complement(WORD), s: SPACE, S: complement(SPACE) };
  if (Object.hasOwn(classes, c)) return { chars: classes[c] as CharSet, next: at + 1 };
  const hex = c === 'u' ? /^u([0-9a-fA-F]{4})/.exec(part.slice(at)) : c === 'x' ? /^x([0-9a-fA-F]{2})/.exec(part.slice(at)) : null;
  if (hex) return { chars: single(parseInt(hex[1] as string, 16)), next: at + hex[0].length };
  const controls: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, f: 0x0c, v: 0x0b, '0': 0x00 };
  if (Object.hasOwn(controls, c)) return { chars: single(controls[c] as number), next: at + 1 };
  // Word boundaries, backreferences, named groups, unicode properties: not readable here.
  if (/[A-Za-z1-9]/.test(c)) throw new Unsupported();
  return { chars: single(c.charCodeAt(0)), next: at + 1 };
}

function charClass(body: string): CharSet {
  const negated = body.startsWith('^');
  const ranges: Array<[number, number]> = [];
  let i = negated ? 1 : 0;
  const unit = (): CharSet => {
    if (body[i] === '\\') {
      const escaped = escape(body, i + 1);
      i = escaped.next;
      return escaped.chars;
    }
    const code = body.charCodeAt(i);
    i++;
    return single(code);
  };
  while (i < body.length) {
    const first = unit();
    if (body[i] === '-' && i + 1 < body.length) {
      i++;
      const last = unit();
      const [lo] = first[0] ?? [0];
      const [, hi] = last[0] ?? [0, 0];
      if (first.length !== 1 || last.length !== 1 || first[0]![0] !== first[0]![1] || last[0]![0] !== last[0]![1] || lo > hi) throw new Unsupported();
      ranges.push([lo, hi]);
    } else {
      ranges.push(...first.map(([lo, hi]) => [lo, hi] as [number, number]));
    }
  }
  const set = normalizeSet(ranges);
  return negated ? complement(set) : set;
}

function single(code: number): CharSet {
  return [[code, code]];
}

function normalizeSet(ranges: ReadonlyArray<readonly [number, number]>): CharSet {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function complement(set: CharSet): CharSet {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of normalizeSet(set)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_UNIT) out.push([next, MAX_UNIT]);
  return out;
}
