/**
 * What a delta means for callers, in a few plain words, for the digest of the Markdown report:
 * "now requires `owner`, `repo`", "rejects unknown arguments", "renamed to `get-sum`",
 * "argument `ref` renamed to `target`", "no longer returns `sku`". Output deltas read as what
 * the server returns, input deltas as what it accepts. Deltas of one entry that say the same
 * thing at several places merge into one phrase that lists the places.
 */
import { whereOf } from '../diff/path.js';
import { compactJson, fieldSegments, jsonEqual, textOf, type Delta } from '../protocol/index.js';
import { mdCode } from './escape.js';

/** A phrase before its places are filled in; deltas whose phrases share a key merge. */
interface Phrase {
  key: string;
  /** Where in the schema (a property path such as `destination.country`); null for the whole entry. */
  place: string | null;
  /** The phrase, given its places as Markdown (`` `a`, `b` ``). */
  render: (places: string) => string;
}

/** At most this many values or places are named in one phrase. */
const MAX_LISTED = 4;

/** The plain-words phrases for the deltas of one entry (Markdown, server text escaped). */
export function describeChanges(deltas: readonly Delta[]): string[] {
  const merged = new Map<string, { phrase: Phrase; places: string[] }>();
  // What happened to the entry itself (removed, renamed) reads first.
  const entryFirst = [...deltas].sort((a, b) => Number(!isEntryLevel(a)) - Number(!isEntryLevel(b)));
  for (const delta of entryFirst) {
    const phrase = configured(delta, phraseOf(delta));
    const entry = merged.get(phrase.key) ?? { phrase, places: [] };
    if (phrase.place !== null && !entry.places.includes(phrase.place)) entry.places.push(phrase.place);
    merged.set(phrase.key, entry);
  }
  return [...merged.values()].map(({ phrase, places }) => phrase.render(listed(places.map((p) => mdCode(p)))));
}

/** A phrase whose severity configuration re-levelled says so. */
function configured(d: Delta, phrase: Phrase): Phrase {
  if (d.defaultSeverity === undefined) return phrase;
  return { ...phrase, key: `${phrase.key}|${d.severity}`, render: (places) => `${phrase.render(places)} (${d.severity} by configuration)` };
}

function isEntryLevel(d: Delta): boolean {
  return d.field === '' || d.renamedTo !== undefined;
}

/** The kind as words: `tool-renamed` → "tool renamed". */
export function kindWords(kind: string): string {
  return kind.replace(/-/g, ' ');
}

function phraseOf(d: Delta): Phrase {
  const output = d.direction === 'output';
  const fixed = (text: string): Phrase => ({ key: `${d.kind}|${text}`, place: null, render: () => text });
  /** A phrase about the property the delta names (its path ends in `properties.NAME`). */
  // Inside a discriminated union, places are read within their action, which the phrase names.
  const inAction = d.action === null ? '' : ` (action ${mdCode(d.action)})`;
  const property = (words: string): Phrase => ({ key: `property|${words}|${d.action}`, place: placeOf(segmentsOf(d.field)), render: (places) => `${words} ${places}${inAction}` });
  /** A phrase about the schema location of a keyword: "`height`: type …", or the bare words at the root. */
  const located = (words: string, rootWords = words, extra = ''): Phrase => {
    const place = keywordPlace(d.field);
    const subject = output ? 'result' : 'arguments';
    if (place === null) return { key: `${d.kind}|${d.direction}|${extra}|${d.action}|root`, place: null, render: () => `${rootWords.replace('{subject}', subject)}${inAction}` };
    return { key: `${d.kind}|${d.direction}|${extra}|${d.action}`, place, render: (places) => `${places}${output ? ' (in results)' : ''}${inAction}: ${words}` };
  };

  switch (d.kind) {
    case 'tool-removed':
    case 'prompt-removed':
    case 'resource-removed':
    case 'resource-template-removed':
      return fixed('removed');
    case 'tool-renamed':
    case 'prompt-renamed':
      return fixed(`renamed to ${mdCode(d.renamedTo ?? textOf(d.current))}`);
    case 'required-property-added':
      return output ? property('now always returns') : property('now requires');
    case 'property-became-required':
      return output ? property('now always returns') : property('now requires');
    case 'defaulted-property-added':
      return property('lists as required (with a default)');
    case 'property-removed':
      return property(output ? 'no longer returns' : 'no longer accepts');
    case 'property-removed-ignored':
      return property(output ? 'no longer returns' : 'may now ignore');
    case 'property-added':
      return property(output ? 'may now return' : 'accepts new');
    case 'property-became-optional':
      return property(output ? 'may no longer return' : 'no longer requires');
    case 'property-renamed': {
      const what = output ? 'result field' : 'argument';
      return fixed(`${what} ${mdCode(textOf(d.previous))} renamed to ${mdCode(textOf(d.current))}`);
    }
    case 'additional-properties-forbidden':
      return located('rejects unknown properties', 'rejects unknown {subject}');
    case 'additional-properties-allowed':
      return located(output ? 'may return unknown properties' : 'accepts unknown properties', output ? 'may return unknown properties' : 'accepts unknown arguments');
    case 'type-narrowed':
    case 'type-changed':
    case 'type-widened': {
      const change = `type ${mdCode(typeText(d.previous))} → ${mdCode(typeText(d.current))}`;
      return located(change, `${output ? 'result' : 'arguments'}: ${change}`, change);
    }
    case 'enum-narrowed':
    case 'enum-changed': {
      const removed = removedValues(d.previous, d.current);
      const only = (d.previous === null || d.previous === undefined) && d.current !== null && d.current !== undefined ? [d.current].flat() : null;
      const words =
        removed !== null
          ? `no longer ${output ? 'returns' : 'accepts'} ${listed(removed.map((v) => mdCode(compactJson(v))))}`
          : only !== null
            ? `${output ? 'returns' : 'accepts'} only ${listed(only.map((v) => mdCode(compactJson(v))))}`
            : `${output ? 'returns' : 'accepts'} fewer values`;
      return located(words, words, words);
    }
    case 'number-range-narrowed':
      return located('tighter range');
    case 'length-range-narrowed':
      return located('tighter length limit');
    case 'item-count-range-narrowed':
      return located('tighter item count');
    case 'property-count-range-narrowed':
      return located('tighter property count');
    case 'pattern-added':
      return located('must match a new pattern');
    case 'pattern-changed':
      return located('pattern changed');
    case 'format-added':
      return located(`must be in format ${mdCode(textOf(d.current))}`, undefined, textOf(d.current));
    case 'format-changed':
      return located(`format ${mdCode(textOf(d.previous))} → ${mdCode(textOf(d.current))}`, undefined, `${textOf(d.previous)}>${textOf(d.current)}`);
    case 'unique-items-added':
      return located('items must be unique');
    case 'schema-became-false':
      return located('accepts nothing');
    case 'union-branch-removed':
      return located('a variant was removed');
    case 'union-made-exclusive':
      return located('must match exactly one variant');
    case 'one-of-overlap':
      return located('variants may overlap');
    case 'action-removed':
      return fixed(`action ${mdCode(d.action ?? textOf(d.previous))} removed`);
    case 'all-of-branch-added':
    case 'not-added':
    case 'not-excludes-more':
    case 'not-changed':
    case 'constraint-added':
    case 'constraint-changed':
    case 'multiple-of-narrowed':
    case 'multiple-of-changed':
    case 'semantic-narrowing':
      return located(output ? 'returns different values' : 'accepts fewer values');
    case 'default-changed':
      return located('default changed');
    case 'default-removed':
      return located('default removed');
    case 'required-prompt-argument-added':
    case 'prompt-argument-became-required':
      return { key: 'prompt-requires', place: argumentOf(d.field), render: (places) => `now requires argument ${places}` };
    case 'prompt-argument-removed':
      return { key: d.kind, place: argumentOf(d.field), render: (places) => `no longer accepts argument ${places}` };
    case 'capability-withdrawn':
      return { key: d.kind, place: segmentsOf(d.field).slice(1).join('.'), render: (places) => `no longer declares the capability ${places}` };
    case 'task-support-required':
      return fixed('must now be called as a task');
    case 'task-support-withdrawn':
      return fixed('can no longer be called as a task');
    case 'output-schema-removed':
      return fixed('no longer declares its output schema');
    case 'tool-no-longer-read-only':
      return fixed('no longer read-only');
    case 'tool-became-destructive':
      return fixed('now declares itself destructive');
    case 'tool-no-longer-idempotent':
      return fixed('no longer idempotent');
    case 'tool-became-open-world':
      return fixed('now reaches an open world');
    case 'suspicious-text':
      return fixed('new text looks like tool poisoning');
    default:
      return d.field === '' || !/Schema/.test(d.field) ? fixed(kindWords(d.kind)) : located(kindWords(d.kind));
  }
}

/** The place of a keyword: the schema location it sits in, without the keyword or union branch; null at the root. */
function keywordPlace(field: string): string | null {
  const segments = segmentsOf(field).slice(0, -1);
  for (;;) {
    const last = segments.at(-1);
    const beforeLast = segments.at(-2);
    if (last !== undefined && /^\d+$/.test(last) && beforeLast !== undefined && ['anyOf', 'oneOf', 'allOf'].includes(beforeLast)) segments.splice(-2);
    else if (last !== undefined && ['anyOf', 'oneOf', 'allOf', 'not'].includes(last)) segments.pop();
    else break;
  }
  const root = segments[0] === 'actions' ? 3 : 1;
  return segments.length <= root ? null : placeOf(segments);
}

/** A schema location as people name it (`destination.country`, `items[].sku`), without its action. */
function placeOf(segments: readonly string[]): string {
  return whereOf(segments[0] === 'actions' ? segments.slice(2) : segments);
}

/** The prompt argument a delta names: `arguments.NAME`, or `arguments.NAME.required` when it became required. */
function argumentOf(field: string): string {
  return segmentsOf(field)[1] ?? field;
}

/** A JSON Schema `type` as people write it: `integer`, `string | null`. */
function typeText(type: unknown): string {
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.map((t) => (typeof t === 'string' ? t : compactJson(t))).join(' | ');
  return type === null || type === undefined ? 'any' : compactJson(type);
}

/** The enum values (or const) no longer allowed; null when the change is not a plain removal. */
function removedValues(previous: unknown, current: unknown): unknown[] | null {
  if (previous === null || previous === undefined) return null;
  const before = Array.isArray(previous) ? previous : [previous];
  const after = current === null || current === undefined ? [] : Array.isArray(current) ? current : [current];
  const removed = before.filter((value) => !after.some((kept) => jsonEqual(kept, value)));
  return removed.length === 0 ? null : removed;
}

/** `a`, `b`, `c` and 4 more: Markdown items, at most `MAX_LISTED` named. */
function listed(items: readonly string[]): string {
  if (items.length <= MAX_LISTED) return items.join(', ');
  return `${items.slice(0, MAX_LISTED - 1).join(', ')} and ${items.length - (MAX_LISTED - 1)} more`;
}

/** A delta's field as segments (the protocol's reading; none for a field the diff would not write). */
function segmentsOf(field: string): string[] {
  return fieldSegments(field) ?? [];
}
