/**
 * Small Markdown helpers for the text the Action writes around the report. Escaping itself is
 * the report's (src/report/escape.ts): much of what lands in a PR comment comes from the PR
 * (server names, error output, commands from its config), and every such value goes through
 * `mdCode`, `mdCodeBlock` or `mdText` there.
 */
import { mdCode } from '../report/escape.js';

export { htmlText, mdCode, mdCodeBlock, mdText } from '../report/escape.js';

/** A GitHub login shown without pinging it (inside a code span a mention is inert). */
export function quietMention(login: string): string {
  return mdCode(`@${login}`);
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The first seven hex digits of a commit, as GitHub shows it; other refs unchanged. */
export function shortSha(ref: string): string {
  return /^[0-9a-f]{40}$/i.test(ref) ? ref.slice(0, 7) : ref;
}

/**
 * Cut Markdown to at most `max` characters at a line boundary, closing what the cut left open
 * (a code fence, `<details>` blocks) so the rest of the page still renders, then `note`.
 */
export function truncateMarkdown(text: string, max: number, note: string): string {
  if (text.length <= max) return text;
  const reserve = note.length + 200;
  let cut = text.lastIndexOf('\n', Math.max(0, max - reserve));
  if (cut < 0) cut = Math.max(0, max - reserve);
  const kept = text.slice(0, cut);
  let fence: string | null = null;
  let openDetails = 0;
  for (const line of kept.split('\n')) {
    const match = /^\s*(`{3,})/.exec(line);
    if (match) {
      const run = match[1] as string;
      if (fence === null) fence = run;
      else if (run.length >= fence.length && line.trim() === run) fence = null;
      continue;
    }
    if (fence !== null) continue;
    openDetails += (line.match(/<details[\s>]/g) ?? []).length - (line.match(/<\/details>/g) ?? []).length;
  }
  const closers = [fence ?? '', ...Array.from({ length: Math.max(0, openDetails) }, () => '</details>')].filter((s) => s !== '');
  return `${kept}\n${closers.join('\n')}${closers.length ? '\n' : ''}\n${note}\n`;
}
