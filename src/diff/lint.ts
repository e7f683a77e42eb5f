/**
 * Description lint against tool poisoning: text that agents read (descriptions, titles, enum
 * values, defaults, the server's instructions…) is an instruction channel. A change that adds a
 * risk cue to a text (one the text at that place did not show before, the same span) is
 * reported as `suspicious-text` (RISKY), whatever the rest of the change is; rewording around a
 * cue that was already there is not: hidden instructions, instructions addressed to the model, a URL (somewhere to send
 * data to, or to fetch orders from), a reference to another tool of the server (one tool's
 * description steering how another is used: "shadowing"), secrets, concealment, and text
 * hidden from a human reader (invisible characters, HTML comments, text pushed out of view).
 * The pinning proxy blocks a tool whose text gains such a cue (src/proxy/pin.ts).
 *
 * Every pattern is linear-time (no nested quantifiers, no unbounded repeat an overlapping
 * one could backtrack into), so a 100 KB description is scanned in microseconds and cannot be
 * used to stall the diff or the proxy.
 */
import { isJsonObject, type JsonValue } from '../contract/model.js';

/** What the text around a string is: the server's tool names, for the cue that names another tool. */
export interface LintContext {
  /** The tools of the server (as it is now), by name. */
  readonly toolNames: ReadonlySet<string>;
  /** Names that are the text's own entry (a tool's name, and its old name after a rename): not "another tool". */
  readonly own?: ReadonlySet<string>;
  /** Top-level fields that identify the entry (a resource's `uri`): a URL there is its name, not a cue. */
  readonly identifiers?: ReadonlySet<string>;
}

/** Where a text shows a cue. */
interface Span {
  index: number;
  text: string;
}

export interface TextSignal {
  /** What the text looks like, in a few words. */
  label: string;
  /** The spans of `text` that show the cue, in order, at most `MAX_SPANS`. */
  find: (text: string, context: LintContext | undefined) => Span[];
  /** Not a cue in a value: an identifier field (see `LintContext.identifiers`), or data such as a default (see `isDataValue`). */
  notInValues?: true;
}

/** Spans looked at per signal and text: enough to tell an added cue from one already there. */
const MAX_SPANS = 32;

const byPattern = (label: string, pattern: RegExp): TextSignal => {
  const global = new RegExp(pattern.source, `${pattern.flags}g`);
  return {
    label,
    find: (text) => {
      const spans: Span[] = [];
      global.lastIndex = 0;
      for (let m = global.exec(text); m !== null && spans.length < MAX_SPANS; m = global.exec(text)) {
        spans.push({ index: m.index, text: m[0] });
        if (m[0] === '') global.lastIndex += 1;
      }
      return spans;
    },
  };
};

/** The signals, in the order they are reported. */
export const TEXT_SIGNALS: readonly TextSignal[] = [
  byPattern(
    'a pseudo-system tag',
    /<\/?\s*(?:important|system|instructions?|admin|secret|hidden|critical|context|prompt)\b[^>\n]{0,40}>|\[\/?(?:system|inst|important|admin|hidden)\]|<\|[a-z_]{2,20}\|>/i,
  ),
  byPattern(
    'an instruction to the model',
    new RegExp(
      [
        // Addressed to the model as such.
        String.raw`\b(?:as an?|you are an?)\s+(?:ai|assistant|language model|llm|agent)\b`,
        // ("the model" and "agent" alone are left out: "the model must be one of…", "user agent should…").
        String.raw`\b(?:the\s+)?(?:assistant|ai|llm|ai\s+agent|language\s+model)\s+(?:must|should|shall|needs?\s+to|has\s+to|is\s+(?:required|instructed)\s+to)\b`,
        // An order with an adverb that makes it one ("you must always…", "you should first…").
        String.raw`\byou\s+(?:must|should|shall|need\s+to|have\s+to|are\s+required\s+to)\s+(?:always|never|first|also|immediately|silently|secretly)\b`,
        // Conditions on the use of tools ("before using this tool", "instead of calling any tool").
        String.raw`\b(?:before|after|instead\s+of|when(?:ever)?)\s+(?:using|calling|invoking|running)\s+(?:this|that|any|the|other|each|every|another)\s+(?:[\w-]+\s+)?tools?\b`,
        String.raw`\b(?:always|never)\s+(?:call|invoke|use|run)\s+(?:this|the|another|other|any)\s+tools?\b`,
        String.raw`\b(?:before|instead\s+of)\s+(?:answering|responding\s+to|replying\s+to)\b`,
      ].join('|'),
      'i',
    ),
  ),
  { ...byPattern('a URL', /\b(?:https?|ftp|file|wss?):\/\/[^\s"'<>`]+|\bwww\.[a-z0-9-]+\.[a-z]{2,}/i), notInValues: true },
  {
    label: 'a reference to another tool',
    find: toolReferences,
  },
  byPattern(
    'a reference to secrets or credential files',
    /~\/\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|(?:^|[\s"'`(/=:])\.env(?:\.[a-z]+)?\b|\bmcp\.json\b|claude_desktop_config\.json|~\/\.aws\/credentials|\.npmrc\b|\.netrc\b|\/etc\/(?:passwd|shadow)\b|\bprivate[ _-]key\b/i,
  ),
  byPattern(
    'an instruction to hide something from the user',
    /\b(?:do not|don't|never)\s+(?:tell|inform|mention|reveal|show|notify|alert)\s+(?:\w+\s+){0,3}?(?:the\s+)?(?:user|human|operator)\b|\bwithout\s+(?:telling|informing|notifying|alerting|asking)\s+the\s+(?:user|human)\b|\b(?:hide|conceal)\s+(?:\w+\s+){0,4}?from\s+the\s+(?:user|human)\b|\b(?:the\s+)?user\s+(?:must|should)\s+not\s+(?:know|see|be told)\b/i,
  ),
  byPattern(
    'an attempt to override instructions',
    /\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier|other)\s+(?:instructions|rules|prompts?|directions)\b|\binstead\s+of\s+(?:the\s+)?user'?s?\s+request\b/i,
  ),
  byPattern(
    'invisible or bidirectional Unicode',
    /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/u,
  ),
  // Text a person reading the rendered description does not see, but the model does: an HTML
  // comment, or text pushed past the visible part by a run of blank lines or spaces.
  byPattern('hidden text (an HTML comment, or text pushed out of view)', /<!--|(?:\r?\n){12}|[ \t\u00A0]{60}/),
  byPattern(
    'terminal control characters',
    // ESC (ANSI sequences) and other C0/C1 controls that text never needs; tab and newlines are fine.
    /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/,
  ),
];

/** A tool name that reads as a name, not as a word: it has a `_`, `-` or `.`, or a camelCase hump. */
const NAMELIKE = /[_.-]|[a-z][A-Z]/;
/** Name-shaped tokens; `.` and `-` inside one (`get-sum`, `fs.read`), never at its ends. */
const TOKEN = /[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?/g;
const QUOTES = new Set(['`', '"', "'"]);

/**
 * The first mention of another tool of the server: a name-like tool name anywhere, or any tool
 * name in quotes or backticks (`search` alone is a word; `` `search` `` names the tool).
 */
function toolReferences(text: string, context: LintContext | undefined): Span[] {
  const spans: Span[] = [];
  if (context === undefined || context.toolNames.size === 0) return spans;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null && spans.length < MAX_SPANS; m = TOKEN.exec(text)) {
    const name = m[0];
    if (!context.toolNames.has(name) || context.own?.has(name) === true) continue;
    const before = text[m.index - 1] ?? '';
    const quoted = QUOTES.has(before) && text[m.index + name.length] === before;
    if (quoted || NAMELIKE.test(name)) spans.push({ index: m.index, text: name });
  }
  return spans;
}

export interface Suspicion {
  /** Segments from the entry to the string. */
  segments: string[];
  previous: string | null;
  current: string;
  /** The first matched span, made visible (invisible characters as \uXXXX escapes). */
  match: string;
  labels: string[];
}

/**
 * Scan the strings of `current` that are new or changed relative to `previous` (same path),
 * object keys included (a property name is read by agents too).
 */
export function lintText(previous: JsonValue | undefined, current: JsonValue, base: string[] = [], context?: LintContext): Suspicion[] {
  const out: Suspicion[] = [];
  visitChangedStrings(previous, current, null, (at, old, text) => {
    const value = (at !== null && at.parent === null && context?.identifiers?.has(at.segment) === true) || isDataValue(at);
    const found = scan(text, context, old, value);
    if (found !== null) out.push({ segments: [...base, ...segmentsOf(at)], previous: old, current: text, match: found.match, labels: found.labels });
  });
  return out;
}

/** A path as a chain from the leaf up: built for free while walking, made an array only for a hit. */
type PathLink = { parent: PathLink | null; segment: string } | null;

/** The schema keywords whose strings are data the tool takes or gives, not prose the model reads as guidance. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(['default', 'const', 'enum', 'examples']);
/** The keywords whose members are named by the schema's author: a member called `default` there is a property, not the keyword. */
const NAMED_MEMBERS: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/**
 * Whether a string sits in a schema's data (a `default`, `const`, `enum` or `examples` value, at
 * any depth): a URL there is an address the tool works with, not somewhere the text sends the
 * model. Instructions and hidden text are cues wherever they are.
 */
function isDataValue(at: PathLink): boolean {
  for (let link = at; link !== null; link = link.parent) {
    if (link.segment !== '(key)' && DATA_KEYWORDS.has(link.segment) && !NAMED_MEMBERS.has(link.parent?.segment ?? '')) return true;
  }
  return false;
}

function segmentsOf(link: PathLink): string[] {
  const segments: string[] = [];
  for (let at = link; at !== null; at = at.parent) segments.push(at.segment);
  return segments.reverse();
}

/**
 * Visit every string of `current` (and every object key, as a `(key)` pseudo-member) that
 * `previous` does not hold at the same path, with the string it held there, if any. Subtrees
 * the two share are passed over at once.
 */
function visitChangedStrings(previous: JsonValue | undefined, current: JsonValue, at: PathLink, visit: (at: PathLink, previous: string | null, text: string) => void): void {
  if (previous === current) return;
  if (typeof current === 'string') {
    visit(at, typeof previous === 'string' ? previous : null, current);
  } else if (Array.isArray(current)) {
    const before = Array.isArray(previous) ? previous : [];
    for (let i = 0; i < current.length; i++) visitChangedStrings(before[i], current[i] as JsonValue, { parent: at, segment: String(i) }, visit);
  } else if (isJsonObject(current)) {
    const before = isJsonObject(previous) ? previous : undefined;
    for (const key of Object.keys(current)) {
      const had = before !== undefined && Object.hasOwn(before, key);
      const link = { parent: at, segment: key };
      if (!had) visit({ parent: link, segment: '(key)' }, null, key);
      visitChangedStrings(had ? before[key] : undefined, current[key] as JsonValue, link, visit);
    }
  }
}

/**
 * The cues `text` shows that `previous` (the text it replaces, if any) did not: the labels, and
 * the first new span made visible. Null when it adds none.
 */
export function scan(text: string, context?: LintContext, previous?: string | null, value = false): { match: string; labels: string[] } | null {
  let match: string | null = null;
  const labels: string[] = [];
  for (const signal of TEXT_SIGNALS) {
    if (value && signal.notInValues === true) continue;
    const spans = signal.find(text, context);
    if (spans.length === 0) continue;
    const had = previous === undefined || previous === null ? undefined : new Set(signal.find(previous, context).map((span) => span.text));
    const m = had === undefined ? spans[0] : spans.find((span) => !had.has(span.text));
    if (m === undefined) continue;
    labels.push(signal.label);
    match ??= shown(text, m);
  }
  return match === null ? null : { match, labels };
}

/**
 * A matched span as a report shows it. A lone invisible character says little: it is shown with
 * a few characters of context; a run of blank lines or spaces, as its length between them.
 */
function shown(text: string, span: Span): string {
  if (span.text.trim().length > 2) return visible(span.text.trim());
  const blank = span.text.length > 2 && span.text.trim() === '';
  let end = span.index + span.text.length;
  // The whole run of blanks, not just the part the pattern needed.
  while (blank && end < text.length && /\s/.test(text[end] as string)) end += 1;
  const before = text.slice(Math.max(0, span.index - 12), span.index);
  const after = text.slice(end, end + 12);
  return visible(`${before}${blank ? `[${end - span.index} blank characters]` : span.text}${after}`);
}

/** Make invisible and control characters visible, so the report shows what was matched. */
export function visible(text: string): string {
  return text.replace(/[\u0000-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/gu, (c) =>
    `\\u${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`,
  );
}
