import type { CommentMode } from './inputs.js';

/**
 * The sticky comment: one per server and workflow job, found again by a hidden marker on its
 * first line. Both names are percent-encoded so neither can close the HTML comment (`-->`) or
 * collide with the other.
 */
export function commentMarker(server: string, job: string): string {
  return `<!-- mcp-contract-guard:sticky server=${markerValue(server)} job=${markerValue(job)} -->`;
}

/** A value inside the comment's hidden data: no space, and nothing that could close the HTML comment. */
export function markerValue(value: string): string {
  return encodeURIComponent(value).replace(/-/g, '%2D');
}

/** The marker on a comment's first line and the job it names; undefined when it carries none. */
export function stickyMarkerOf(body: string): { marker: string; job: string } | undefined {
  const marker = body.split(/\r?\n/, 1)[0] ?? '';
  const match = /^<!-- mcp-contract-guard:sticky server=[^\s]* job=([^\s]*) -->$/.exec(marker);
  if (!match) return undefined;
  try {
    return { marker, job: decodeURIComponent(match[1] as string) };
  } catch {
    return undefined;
  }
}

export interface IssueComment {
  id: number;
  body?: string | null;
  user?: { login: string; type?: string } | null;
  html_url?: string;
}

/** The account GITHUB_TOKEN writes as. */
export const ACTIONS_BOT = 'github-actions[bot]';

/**
 * The comment to update: the oldest one whose first line is the marker and that this Action
 * wrote, which only its own identity can have done: `github-actions[bot]` (GITHUB_TOKEN), or
 * the token's own account when `ownLogin` names it (a PAT). Any other account, a bot of
 * another GitHub App included, that pastes the marker into a comment does not get it
 * rewritten, nor its approval record read.
 */
export function findSticky<T extends IssueComment>(comments: Iterable<T>, marker: string, ownLogin?: string): T | undefined {
  for (const comment of comments) {
    if (isMarked(comment, marker) && isOwn(comment, ownLogin)) return comment;
  }
  return undefined;
}

/** Written by this Action's identity (see findSticky). */
export function isOwn(comment: IssueComment, ownLogin?: string): boolean {
  const login = comment.user?.login;
  return login !== undefined && (login === ACTIONS_BOT || (ownLogin !== undefined && login === ownLogin));
}

export function isMarked(comment: IssueComment, marker: string): boolean {
  const body = comment.body ?? '';
  return body === marker || body.startsWith(`${marker}\n`) || body.startsWith(`${marker}\r\n`);
}

export type CommentPlan =
  | { action: 'create'; body: string }
  | { action: 'update'; id: number; body: string }
  | { action: 'none'; reason: string };

/**
 * What to do with the sticky comment, given the one found (if any) and the body this run
 * would write. `changed` is true when there is something to say (deltas, a stale lockfile,
 * a compile failure); `quietBody` is the "no contract changes" text for a PR whose earlier
 * changes were reverted.
 */
export function planComment(options: {
  mode: CommentMode;
  existing?: { id: number; body?: string | null };
  changed: boolean;
  body: string;
  quietBody: string;
}): CommentPlan {
  const { mode, existing, changed } = options;
  if (mode === 'never') return { action: 'none', reason: 'comment: never' };
  const body = changed || mode === 'always' ? options.body : options.quietBody;
  if (!existing) {
    if (!changed && mode === 'on-change') return { action: 'none', reason: 'no contract changes, and no earlier comment to update' };
    return { action: 'create', body };
  }
  if (normalize(existing.body ?? '') === normalize(body)) return { action: 'none', reason: 'the comment already says this' };
  return { action: 'update', id: existing.id, body };
}

/** GitHub may return a body with CRLF line ends or without the final newline. */
function normalize(body: string): string {
  return body.replace(/\r\n/g, '\n').trimEnd();
}
