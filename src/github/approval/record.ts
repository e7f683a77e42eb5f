/**
 * Where an approval's record lives: a second hidden line of the sticky comment, right under
 * its marker. Only a comment `findSticky` trusts (written by this Action's own identity:
 * github-actions[bot], or the token's own account) is ever read, so a person who pastes such a line into a comment of
 * their own approves nothing.
 */
import { MAX_RECORDED, type ApprovalRecord } from '../../policy/coverage.js';
import { markerValue } from '../io/index.js';

const PREFIX = '<!-- mcp-contract-guard:approved';
const LINE = /^<!-- mcp-contract-guard:approved label=(\S*) by=(\S*) at=(\S*) fingerprints=([0-9a-f,]*) -->$/;

export function renderApprovalRecord(record: ApprovalRecord): string {
  return `${PREFIX} label=${markerValue(record.label)} by=${markerValue(record.by)} at=${markerValue(record.at)} fingerprints=${record.fingerprints.join(',')} -->`;
}

/** The record on the line after the marker of a (trusted) sticky comment's body, if any. */
export function readApprovalRecord(body: string): ApprovalRecord | undefined {
  const second = body.split('\n', 2)[1]?.replace(/\r$/, '');
  const match = second === undefined ? null : LINE.exec(second);
  if (!match) return undefined;
  try {
    const fingerprints = match[4]!.split(',').filter((f) => /^[0-9a-f]{4,64}$/.test(f)).slice(0, MAX_RECORDED);
    return { label: decodeURIComponent(match[1]!), by: decodeURIComponent(match[2]!), at: decodeURIComponent(match[3]!), fingerprints };
  } catch {
    // A malformed escape: not a record this Action wrote.
    return undefined;
  }
}

/** `body` (its first line the marker) with `record` as its second line, or without any record. */
export function withApprovalRecord(body: string, record: ApprovalRecord | undefined): string {
  const at = body.indexOf('\n');
  const [marker, rest] = at < 0 ? [body, ''] : [body.slice(0, at), body.slice(at + 1)];
  const kept = rest.startsWith(PREFIX) ? rest.slice(rest.indexOf('\n') + 1 || rest.length) : rest;
  return record === undefined ? `${marker}\n${kept}` : `${marker}\n${renderApprovalRecord(record)}\n${kept}`;
}
