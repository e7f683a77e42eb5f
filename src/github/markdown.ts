/**
 * Markdown helpers for text the Action writes around the report. Much of what lands in a PR
 * comment comes from the PR itself (server names, error output, commands from its config), so
 * every such value goes through one of these: code spans and fences show it verbatim with no
 * HTML, no links, no tables broken, and no `@mention` ever pinging anyone.
 */

/** A code span that no backtick run inside `text` can close early. One line only. */
export function inlineCode(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ');
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  // A span that starts or ends with a backtick needs a space so the fence stays distinct.
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat === '' ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A fenced block whose fence is longer than any backtick run in `text`. */
export function codeBlock(text: string, language = ''): string {
  const longest = Math.max(0, ...[...text.matchAll(/`{3,}/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text.replace(/\n+$/, '')}\n${fence}`;
}

/**
 * Plain prose that must not be interpreted: markdown punctuation and HTML are backslash-escaped
 * and `@` is followed by a zero-width joiner so no one is mentioned. Used for short sentences
 * built from untrusted words where a code span would read badly.
 */
export function escapeText(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\`*_{}[\]()#+!|<>~]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;')
    .replace(/@/g, '@\u2060');
}

/** A GitHub login shown without pinging it (inside a code span mentions are inert). */
export function quietMention(login: string): string {
  return inlineCode(`@${login}`);
}

/** Cut `text` to at most `max` characters at a line boundary, saying so. */
export function truncateText(text: string, max: number, note = '… (truncated)'): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - note.length - 1);
  const cut = text.lastIndexOf('\n', room);
  return `${text.slice(0, cut > room / 2 ? cut : room)}\n${note}`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The first seven hex digits of a commit, as GitHub shows it. */
export function shortSha(sha: string): string {
  return /^[0-9a-f]{40}$/i.test(sha) ? sha.slice(0, 7) : sha;
}
