/**
 * XML text helpers shared by every runtime renderer. Everything that reaches an LLM through the
 * error protocol goes through `escapeText` or `escapeAttr`, so a hostile tool name, argument or
 * schema value can neither close our elements nor forge new ones.
 */

// XML 1.0 forbids most C0 controls, lone surrogates and U+FFFE/U+FFFF; a parser would reject the
// whole document, so they become U+FFFD instead.
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const TEXT_SPECIALS = /[&<]/g;
const ATTR_SPECIALS = /[&<>"']/g;
const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

function replaceEntity(char: string): string {
  return ENTITIES[char] ?? char;
}

/**
 * Escapes element content. `>` is left as is: it cannot open markup, and `>= 1` reads better to
 * a model than `&gt;= 1`.
 */
export function escapeText(value: string): string {
  return value.replace(INVALID_XML_CHARS, '\uFFFD').replace(TEXT_SPECIALS, replaceEntity);
}

/** Escapes an attribute value (all five XML specials). */
export function escapeAttr(value: string): string {
  return value.replace(INVALID_XML_CHARS, '\uFFFD').replace(ATTR_SPECIALS, replaceEntity);
}

/**
 * JSON with object keys sorted at every level, so the same value always renders to the same
 * bytes whatever order its producer wrote the keys in. `undefined` (absent) renders as
 * `undefined`, which JSON cannot express; functions and symbols never occur in the JSON values
 * this is used on.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'undefined';
  return JSON.stringify(sortKeys(value, 0)) ?? 'undefined';
}

const MAX_DEPTH = 64;

function sortKeys(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') {
    // JSON.stringify throws on bigint; show it as the number it stands for.
    return typeof value === 'bigint' ? value.toString() : value;
  }
  if (depth > MAX_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => sortKeys(item, depth + 1));
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    sorted[key] = sortKeys((value as Record<string, unknown>)[key], depth + 1);
  }
  return sorted;
}

/**
 * Cuts `text` to at most `max` characters (never inside a surrogate pair) and says how long the
 * original was, so the model knows it is looking at a prefix.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… (truncated, ${text.length} characters)`;
}

/** `"a", "b", "c"`, listing at most `max` values and counting the rest. */
export function listValues(values: readonly unknown[], max = 20): string {
  const shown = values.slice(0, max).map((value) => canonicalJson(value));
  const rest = values.length - shown.length;
  return rest > 0 ? `${shown.join(', ')} (+${rest} more)` : shown.join(', ');
}
