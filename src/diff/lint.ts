/**
 * Description lint against tool poisoning: text that agents read (descriptions, titles, enum
 * values, defaults…) is an instruction channel. New or changed text that looks like hidden
 * instructions is reported as `suspicious-text` (RISKY), whatever the rest of the change is.
 *
 * Every pattern is linear-time (no nested quantifiers), so a 100 KB description is scanned in
 * microseconds and cannot be used to stall the diff.
 */
import { isJsonObject, type JsonValue } from '../contract/model.js';

export interface TextSignal {
  /** What the text looks like, in a few words. */
  label: string;
  pattern: RegExp;
}

/** The signals, in the order they are reported. */
export const TEXT_SIGNALS: readonly TextSignal[] = [
  {
    label: 'a pseudo-system tag',
    pattern: /<\/?\s*(?:important|system|instructions?|admin|secret|hidden|critical|context|prompt)\b[^>\n]{0,40}>|\[\/?(?:system|inst|important|admin|hidden)\]|<\|[a-z_]{2,20}\|>/i,
  },
  {
    label: 'a reference to secrets or credential files',
    pattern: /~\/\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|(?:^|[\s"'`(/=:])\.env(?:\.[a-z]+)?\b|\bmcp\.json\b|claude_desktop_config\.json|~\/\.aws\/credentials|\.npmrc\b|\.netrc\b|\/etc\/(?:passwd|shadow)\b|\bprivate[ _-]key\b/i,
  },
  {
    label: 'an instruction to hide something from the user',
    pattern: /\b(?:do not|don't|never)\s+(?:tell|inform|mention|reveal|show|notify|alert)\s+(?:\w+\s+){0,3}?(?:the\s+)?(?:user|human|operator)\b|\bwithout\s+(?:telling|informing|notifying|alerting|asking)\s+the\s+(?:user|human)\b|\b(?:hide|conceal)\s+(?:\w+\s+){0,4}?from\s+the\s+(?:user|human)\b|\b(?:the\s+)?user\s+(?:must|should)\s+not\s+(?:know|see|be told)\b/i,
  },
  {
    label: 'an attempt to override instructions',
    pattern: /\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier|other)\s+(?:instructions|rules|prompts?|directions)\b|\binstead\s+of\s+(?:the\s+)?user'?s?\s+request\b/i,
  },
  {
    label: 'invisible or bidirectional Unicode',
    pattern: /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/u,
  },
  {
    label: 'terminal control characters',
    // ESC (ANSI sequences) and other C0/C1 controls that text never needs; tab and newlines are fine.
    pattern: /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/,
  },
];

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
export function lintText(previous: JsonValue | undefined, current: JsonValue, base: string[] = []): Suspicion[] {
  const out: Suspicion[] = [];
  visitChangedStrings(previous, current, null, (at, old, text) => {
    const found = scan(text);
    if (found !== null) out.push({ segments: [...base, ...segmentsOf(at)], previous: old, current: text, match: found.match, labels: found.labels });
  });
  return out;
}

/** A path as a chain from the leaf up: built for free while walking, made an array only for a hit. */
type PathLink = { parent: PathLink | null; segment: string } | null;

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

export function scan(text: string): { match: string; labels: string[] } | null {
  let match: string | null = null;
  const labels: string[] = [];
  for (const signal of TEXT_SIGNALS) {
    const m = signal.pattern.exec(text);
    if (m === null) continue;
    labels.push(signal.label);
    // A lone invisible character says little: show it with a few characters of context.
    const span = m[0].length <= 2 ? text.slice(Math.max(0, m.index - 12), m.index + m[0].length + 12) : m[0].trim();
    match ??= visible(span);
  }
  return match === null ? null : { match, labels };
}

/** Make invisible and control characters visible, so the report shows what was matched. */
export function visible(text: string): string {
  return text.replace(/[\u0000-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/gu, (c) =>
    `\\u${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`,
  );
}
