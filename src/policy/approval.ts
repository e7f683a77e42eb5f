import type { Approval } from '../protocol/index.js';

/**
 * Whether the approval label approves. Anyone who can label a pull request (a triager, a bot,
 * on some setups its own author) could otherwise wave a BREAKING change through: the label
 * counts only when the account that added it may write to the repository.
 */

/** `permission` values of GitHub's collaborator permission API that may approve (maintain and write-based custom roles report `write`). */
const APPROVING = new Set(['admin', 'write']);

export interface LabelFacts {
  label: string;
  /** The account that added the label; undefined when it could not be found. */
  by?: string;
  /** Its permission on the repository (`permission`, and `role_name` for people), or why it could not be read. */
  permission?: { permission: string; role?: string } | { error: string };
}

export type ApprovalJudgement = { approval: Approval } | { ignored: string };

export function judgeApproval(facts: LabelFacts): ApprovalJudgement {
  const { label, by, permission } = facts;
  const who = `The label "${label}"`;
  if (by === undefined) {
    return { ignored: `${who} is on the pull request, but who added it could not be found, so it does not approve. Remove it and add it again.` };
  }
  if (permission === undefined || 'error' in permission) {
    const why = permission === undefined ? '' : ` (${permission.error})`;
    return { ignored: `${who} was added by @${by}, whose permission on this repository could not be checked${why}, so it does not approve.` };
  }
  if (!APPROVING.has(permission.permission)) {
    const role = permission.role ?? permission.permission;
    return { ignored: `${who} was added by @${by}, who has ${role} permission on this repository: only an account with write, maintain or admin permission can approve, so the label is ignored. To approve, one of them removes it and adds it again.` };
  }
  return { approval: { label, by } };
}
