/**
 * What a delta means for callers, in a few plain words (each rule says its own: see
 * `Rule.phrase`), for the digest of the Markdown report:
 * "now requires `owner`, `repo`", "rejects unknown arguments", "renamed to `get-sum`",
 * "argument `ref` renamed to `target`", "no longer returns `sku`". Output deltas read as what
 * the server returns, input deltas as what it accepts. Deltas of one entry that say the same
 * thing at several places merge into one phrase that lists the places.
 */
import { fieldSegments, whereOf, type Delta } from '../protocol/index.js';
import { phraseOf, type Phrase, type PhraseKit } from '../rules/index.js';
import { mdCode } from './escape.js';

/** At most this many values or places are named in one phrase. */
const MAX_LISTED = 4;

/** The plain-words phrases for the deltas of one entry (Markdown, server text escaped). */
export function describeChanges(deltas: readonly Delta[]): string[] {
  const merged = new Map<string, { phrase: Phrase; places: string[] }>();
  // What happened to the entry itself (removed, renamed) reads first.
  const entryFirst = [...deltas].sort((a, b) => Number(!isEntryLevel(a)) - Number(!isEntryLevel(b)));
  for (const delta of entryFirst) {
    const phrase = configured(delta, phraseOf(delta, kitFor(delta)));
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

/**
 * The phrase builders for one delta (see `PhraseKit`): Markdown code spans, and places read
 * from the delta's field. Inside a discriminated union, places are read within their action,
 * which the phrase names.
 */
function kitFor(d: Readonly<Delta>): PhraseKit {
  const output = d.direction === 'output';
  const inAction = d.action === null ? '' : ` (action ${mdCode(d.action)})`;
  return {
    fixed: (text) => ({ key: `${d.kind}|${text}`, place: null, render: () => text }),
    property: (words) => ({ key: `property|${words}|${d.action}`, place: placeOf(segmentsOf(d.field)), render: (places) => `${words} ${places}${inAction}` }),
    located: (words, rootWords = words, extra = '') => {
      const place = keywordPlace(d.field);
      const subject = output ? 'result' : 'arguments';
      if (place === null) {
        const words = rootWords.replace('{subject}', subject);
        // Said of the result, whatever the words: an output change reads as one.
        const inResults = output && !/\bresult|\breturn/.test(words) ? ' (in results)' : '';
        return { key: `${d.kind}|${d.direction}|${extra}|${d.action}|root`, place: null, render: () => `${words}${inResults}${inAction}` };
      }
      return { key: `${d.kind}|${d.direction}|${extra}|${d.action}`, place, render: (places) => `${places}${output ? ' (in results)' : ''}${inAction}: ${words}` };
    },
    argument: (words, key) => ({ key, place: argumentOf(d.field), render: (places) => `${words} ${places}` }),
    capability: (words) => ({ key: d.kind, place: segmentsOf(d.field).slice(1).join('.'), render: (places) => `${words} ${places}` }),
    code: mdCode,
    list: listed,
  };
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

/** `a`, `b`, `c` and 4 more: Markdown items, at most `MAX_LISTED` named. */
function listed(items: readonly string[]): string {
  if (items.length <= MAX_LISTED) return items.join(', ');
  return `${items.slice(0, MAX_LISTED - 1).join(', ')} and ${items.length - (MAX_LISTED - 1)} more`;
}

/** A delta's field as segments (the protocol's reading; none for a field the diff would not write). */
function segmentsOf(field: string): string[] {
  return fieldSegments(field) ?? [];
}
