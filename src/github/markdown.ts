/**
 * Small Markdown helpers for the text the Action writes around the report. Escaping itself is
 * the report's (src/report/escape.ts): much of what lands in a PR comment comes from the PR
 * (server names, error output, commands from its config), and every such value goes through
 * `mdCode`, `mdCodeBlock` or `mdText` there.
 */
import { mdCode } from '../report/escape.js';

export { htmlText, mdCell, mdCode, mdCodeBlock, mdText } from '../report/escape.js';
export { truncateMarkdown } from '../report/markdown.js';

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
