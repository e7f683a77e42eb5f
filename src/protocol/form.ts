/**
 * The form of a file one job hands another (the review file, the capture file), as checks the
 * readers compose: strings and lists with a cap, vocabularies, objects with exactly the fields
 * the format writes (an unknown one, `__proto__` included, is refused, so a checked object holds
 * no name but ours), records of names the file gives. A check says what is wrong with a value
 * to a `Reader`, which collects the problems, at most 20, each named with its place.
 *
 * A reader builds its form when it reads a file, not when its module loads, from the checks
 * `formChecks()` hands it: a bundle that reads none of these files (the runtime's) then leaves
 * all of this out. They are handed out by a call rather than exported one by one because esbuild
 * keeps the name of every function another module imports out of the names it gives the rest of
 * the bundle, even when it drops the function: a runtime's local `text` or `list` would grow into
 * `text2`, `list2`.
 */
import { isJsonObject } from './json.js';
import { describe, kindOf } from './read.js';

const MAX_PROBLEMS = 20;

/** Collects what is wrong with a file, at most 20 problems. A reader that checks more (the review file's reports) extends it. */
export class Reader {
  readonly problems: string[] = [];

  get full(): boolean {
    return this.problems.length >= MAX_PROBLEMS;
  }

  problem(at: string, text: string): void {
    if (!this.full) this.problems.push(at === '' ? text : `${at} ${text}`);
  }
}

/** What a field must be: says what is wrong with `value`, found at `at`, to `reader`. */
export type Check<R extends Reader = Reader> = (value: unknown, at: string, reader: R) => void;

/** The checks a form is built of (see the module comment). */
export function formChecks() {
  return { optional, text, matching, oneOf, list, object, record };
}

/** Checks a field may be absent for (a JSON value is never `undefined`). */
const OPTIONAL = new WeakSet<Check<never>>();

function optional<R extends Reader>(check: Check<R>): Check<R> {
  const field: Check<R> = (value, at, reader) => check(value, at, reader);
  OPTIONAL.add(field);
  return field;
}

function text(max: number): Check {
  return (value, at, reader) => {
    if (typeof value === 'string' && value.length <= max) return;
    const got = typeof value === 'string' ? `${value.length.toLocaleString('en-US')} characters` : describe(value);
    reader.problem(at, `must be a string of at most ${max.toLocaleString('en-US')} characters, got ${got}`);
  };
}

function matching(pattern: RegExp, what: string): Check {
  return (value, at, reader) => {
    if (typeof value !== 'string' || !pattern.test(value)) reader.problem(at, `must be ${what}, got ${describe(value)}`);
  };
}

function oneOf(values: readonly unknown[]): Check {
  return (value, at, reader) => {
    if (!values.includes(value)) reader.problem(at, `must be ${values.length === 1 ? '' : 'one of '}${values.map((v) => JSON.stringify(v)).join(', ')}, got ${describe(value)}`);
  };
}

function list<R extends Reader>(item: Check<R>, max: number): Check<R> {
  return (value, at, reader) => {
    if (!Array.isArray(value)) return reader.problem(at, `must be a list, got ${kindOf(value)}`);
    if (value.length > max) return reader.problem(at, `holds ${value.length.toLocaleString('en-US')} items; at most ${max.toLocaleString('en-US')}`);
    for (let i = 0; i < value.length && !reader.full; i++) item(value[i], `${at}[${i}]`, reader);
  };
}

/** An object with exactly these fields (those marked `optional` may be absent). */
function object<R extends Reader>(what: string, fields: Record<string, Check<R>>): Check<R> {
  return (value, at, reader) => {
    if (!isJsonObject(value)) return reader.problem(at, `must be ${what}, got ${kindOf(value)}`);
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length && !reader.full; i++) {
      const key = keys[i] as string;
      if (!Object.hasOwn(fields, key)) reader.problem(pathOf(at, key), `is not a field of ${what}`);
    }
    for (const [key, check] of Object.entries(fields)) {
      if (value[key] !== undefined) check(value[key], pathOf(at, key), reader);
      else if (!OPTIONAL.has(check)) reader.problem(at === '' ? 'it' : at, `has no "${key}"`);
    }
  };
}

/**
 * An object of at most `max` entries under names the file gives (a server's, from the pull
 * request: `__proto__` is one like any other), each name of at most `maxName` characters and
 * each value of the form `item`. Whoever keeps the entries keeps them in a null-prototype record.
 */
function record<R extends Reader>(what: string, item: Check<R>, limits: { max: number; maxName: number }): Check<R> {
  return (value, at, reader) => {
    if (!isJsonObject(value)) return reader.problem(at, `must be ${what}, got ${kindOf(value)}`);
    const names = Object.keys(value);
    if (names.length > limits.max) return reader.problem(at, `holds ${names.length.toLocaleString('en-US')} entries; at most ${limits.max.toLocaleString('en-US')}`);
    for (let i = 0; i < names.length && !reader.full; i++) {
      const name = names[i] as string;
      if (name.length > limits.maxName) reader.problem(pathOf(at, name), `is a name of ${name.length.toLocaleString('en-US')} characters; at most ${limits.maxName.toLocaleString('en-US')}`);
      else item(value[name], pathOf(at, name), reader);
    }
  };
}

/** `at.key`, or `at["key"]` (shortened) for a name the file made up. */
function pathOf(at: string, key: string): string {
  if (!/^[A-Za-z_$][\w$]{0,59}$/.test(key)) return `${at}[${describe(key)}]`;
  return at === '' ? key : `${at}.${key}`;
}
