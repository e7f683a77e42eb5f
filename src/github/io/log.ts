/**
 * Text for the step's log. The runner reads a stdout line as a workflow command when it starts
 * with `::` after leading whitespace, or holds `##[` anywhere (the older syntax): a server name,
 * a lint finding or an error message that carried one could add a mask, stop command
 * processing, set an output or forge an annotation. Annotations and groups are safe already
 * (@actions/core percent-encodes line breaks in a command's data); plain log lines are not.
 */
import { randomBytes } from 'node:crypto';

/** A line that could read as a command: only punctuation or spaces before `::`, or `##[` anywhere. */
const COMMAND_LIKE = /^[^\p{L}\p{N}]*::|##\[/mu;

/**
 * `text` unchanged when no line of it could be a workflow command; else wrapped in
 * `::stop-commands::TOKEN` … `::TOKEN::`, between which the runner ignores every command but
 * the one that resumes. The token is random, so the text cannot resume early.
 */
export function inert(text: string, token = randomBytes(16).toString('hex')): string {
  if (!COMMAND_LIKE.test(text)) return text;
  return `::stop-commands::${token}\n${text}\n::${token}::`;
}
