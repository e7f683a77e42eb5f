/**
 * Privileged events: those that run with this repository's secrets and a write token while
 * acting on a pull request. There, starting a server from the pull request's code, or
 * contacting an address its config names (with the secret `headers`), hands both to whoever
 * opened it. The Action refuses unless the workflow opts in, in an input named for the risk,
 * and reads the head's files at the head commit by SHA: the checkout of such a workflow is
 * usually the base, and comparing the base with itself would pass every pull request.
 */

const SECRETS = "this repository's secrets and a write token";

const PRIVILEGED: Readonly<Record<string, string>> = {
  pull_request_target: `it runs with ${SECRETS} for every pull request, forks included`,
  workflow_run: `it runs with ${SECRETS} after a run that any pull request, a fork's included, can start`,
  issue_comment: `it runs with ${SECRETS} whenever anyone comments on a pull request`,
  pull_request_review: `it runs on a reviewer's action, with ${SECRETS} for pull requests from this repository's branches`,
  pull_request_review_comment: `it runs on a reviewer's action, with ${SECRETS} for pull requests from this repository's branches`,
  check_run: `it runs with ${SECRETS} for commits a pull request supplies`,
  check_suite: `it runs with ${SECRETS} for commits a pull request supplies`,
  deployment_status: `it runs with ${SECRETS} for commits a pull request supplies (preview deployments)`,
  status: `it runs with ${SECRETS} for commits a pull request supplies`,
};

/** The events the policy covers, for the documentation and the tests. */
export const PRIVILEGED_EVENTS = Object.keys(PRIVILEGED);

/** A server the review would start (`command`) or contact (`url`). */
export interface LiveServer {
  name: string;
  kind: 'command' | 'url';
}

export interface PrivilegePolicy {
  /** Read the head's config, lockfiles and dumps at the head commit, not from the checkout. */
  headFromCommit: boolean;
  /** For the log, when the workflow opted in to running pull request code here. */
  warning?: string;
  /** Why these servers may not be started or contacted, or undefined when they may. */
  refusal(live: LiveServer[]): string | undefined;
}

export function privilegePolicy(eventName: string, optedIn: boolean): PrivilegePolicy {
  const reason = Object.hasOwn(PRIVILEGED, eventName) ? PRIVILEGED[eventName] : undefined;
  if (reason === undefined) return { headFromCommit: false, refusal: () => undefined };
  if (optedIn) {
    return {
      headFromCommit: false,
      warning: `Running under ${eventName} with "unsafe-allow-privileged-events": ${reason}; the servers of the checkout are started with that access. Only do this when every pull request that can trigger this workflow is trusted.`,
      refusal: () => undefined,
    };
  }
  return {
    headFromCommit: true,
    refusal(live) {
      if (live.length === 0) return undefined;
      const started = live.filter((s) => s.kind === 'command').map((s) => s.name);
      const contacted = live.filter((s) => s.kind === 'url').map((s) => s.name);
      const what = [started.length > 0 ? `start ${list(started)}` : '', contacted.length > 0 ? `contact the address of ${list(contacted)}` : ''].filter((s) => s !== '').join(' or ');
      return (
        `Refusing to ${what} under ${eventName}: ${reason}, so the code of a pull request, or an address its config names, would get them. ` +
        'Review pull requests on the pull_request event instead; to comment on pull requests from forks, use the two-workflow pattern of ' +
        'examples/workflows/fork-review.yml (pull_request: review, upload the review file) and fork-comment.yml (workflow_run: post it with "mode: comment-only", no code of the pull request runs). ' +
        'Or set "compile: false" to compare the lockfiles committed at the head commit (read by its SHA; nothing is started). ' +
        'If every pull request that can trigger this workflow is trusted, set "unsafe-allow-privileged-events: true".'
      );
    },
  };
}

function list(names: string[]): string {
  const shown = names.slice(0, 5).map((n) => `"${n}"`);
  if (names.length > shown.length) shown.push(`${names.length - shown.length} more`);
  return shown.length === 1 ? (shown[0] as string) : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}
