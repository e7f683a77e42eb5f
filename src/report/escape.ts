/**
 * Escaping for every output format. Everything a server sends (names, descriptions, enum
 * values) is attacker-controlled: it must never be able to inject markup, ping people, break a
 * table, forge an XML element or drive the terminal.
 */

/** Controls and invisible/bidi characters, shown as `\uXXXX` in human-facing output. */
const INVISIBLE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/gu;

const codePoint = (c: string) => `\\u${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;

/** Make control, invisible and bidi characters visible (`\u202E`), so nothing hides in output. */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, codePoint);
}

/** Shorten to at most `max` characters, saying so (never inside a surrogate pair). */
export { truncate } from '../protocol/index.js';

/** Word joiner: invisible, but stops GitHub from reading `@name` as a mention. */
const WORD_JOINER = '\u2060';

/**
 * Text for Markdown prose: markdown and HTML metacharacters backslash-escaped (in prose
 * GitHub consumes the backslash) or turned into entities, line breaks flattened, `@mentions`
 * and bare links defused, invisible characters made visible. In a table cell, pass the
 * result through `mdCell`.
 */
export function mdText(text: string): string {
  return defuseLinks(
    oneLineWithEntities(text)
      .replace(/([\\`*_[\]()#~!$])/g, '\\$1')
      .replace(/^([+\-=]|\d+[.)])/, '\\$1'),
  );
}

/**
 * Inline Markdown (built with `mdText` and `mdCode`) made fit for a GFM table cell: every
 * `|` escaped, code spans included, since the table splits rows before it reads code spans
 * and then removes the backslash. Outside a table the backslash would show in a code span.
 */
export function mdCell(inline: string): string {
  // An odd run of backslashes already escapes the pipe; an even one (escaped backslashes) does not.
  return inline.replace(/(\\*)\|/g, (match, run: string) => (run.length % 2 === 0 ? `${run}\\|` : match));
}

/** The common ground of Markdown and HTML text: visible, on one line, no markup characters. */
function oneLineWithEntities(text: string): string {
  return visibleText(text).replace(/\r\n|\r|\n/g, ' ').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** No mention pings, no clickable links planted by a server: a word joiner breaks both. */
function defuseLinks(text: string): string {
  return text
    .replace(/@/g, `@${WORD_JOINER}`)
    .replace(/:\/\//g, `:${WORD_JOINER}//`)
    .replace(/\bwww\./gi, (m) => `${m.slice(0, 3)}${WORD_JOINER}.`);
}

/**
 * An inline code span that holds any text: the fence is longer than any backtick run inside,
 * padded when the text starts or ends with a backtick, line breaks flattened. Inside code
 * nothing renders, so mentions and HTML are inert, and nothing is escaped (GitHub would show
 * the backslash). In a table cell, pass the result through `mdCell`.
 */
export function mdCode(text: string): string {
  const flat = visibleText(text).replace(/\r\n|\r|\n/g, ' ');
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat === '' ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A fenced code block that no content can close early. */
export function mdCodeBlock(text: string, language = ''): string {
  const body = visibleText(text).replace(/\r\n|\r/g, '\n');
  const longest = Math.max(2, ...(body.match(/`{3,}/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${body}\n${fence}`;
}

/** Terminal text: controls (ANSI escapes included) made visible, so a name cannot recolour or clear the screen. */
export function terminalText(text: string): string {
  return visibleText(text);
}
