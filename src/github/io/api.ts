import { getOctokit } from '@actions/github';
import { findSticky, isMarked, isOwn, stickyMarkerOf, type IssueComment } from './sticky.js';

export type Octokit = ReturnType<typeof getOctokit>;

/** An issue as the issues API returns it (the fields the Action reads). */
export interface RepoIssue {
  id: number;
  number: number;
  title: string;
  body?: string | null;
  state?: string;
  labels?: Array<string | { name?: string }>;
  user?: { login: string; type?: string } | null;
  html_url?: string;
}

export interface Repo {
  owner: string;
  repo: string;
}

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** First wait; doubled each time (a Retry-After header wins, up to `maxWaitMs`). */
  baseMs: number;
  maxWaitMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseMs: 1_000, maxWaitMs: 30_000 };

/** The retry policy of a run: the default, with waits that tests shorten (MCP_CONTRACT_GUARD_RETRY_BASE_MS). */
export function retryPolicy(): RetryPolicy {
  const base = Number(process.env.MCP_CONTRACT_GUARD_RETRY_BASE_MS);
  return Number.isFinite(base) && base >= 0 ? { ...DEFAULT_RETRY, baseMs: base } : DEFAULT_RETRY;
}

export interface Logger {
  info(message: string): void;
  debug(message: string): void;
  warning(message: string): void;
}

/** The HTTP status of an Octokit error (network failures come back as 500). */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** The token may not do this: a fork PR's read-only token, or a workflow without `pull-requests: write`. */
export function isPermissionError(error: unknown): boolean {
  const status = statusOf(error);
  return status === 401 || status === 403;
}

/** Worth another try: GitHub's own hiccups, rate limits and dropped connections. */
export function isTransient(error: unknown): boolean {
  const status = statusOf(error);
  return status === undefined || status >= 500 || status === 429;
}

/**
 * The few REST calls the Action makes, on the Octokit of `@actions/github` (it honours
 * GITHUB_API_URL, so GHES and the tests' local server work unchanged), with bounded retries
 * of transient failures for every idempotent request. A POST is never retried blindly: the
 * comment code looks first whether the comment landed (see `postComment`).
 */
export class GitHubApi {
  readonly octokit: Octokit;

  constructor(
    token: string,
    readonly repo: Repo,
    log: Logger,
    retry: RetryPolicy = DEFAULT_RETRY,
  ) {
    this.octokit = getOctokit(token, {
      log: { debug: (m: string) => log.debug(m), info: (m: string) => log.debug(m), warn: (m: string) => log.debug(m), error: (m: string) => log.debug(m) },
    });
    this.octokit.hook.wrap('request', async (request, options) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await request(options);
        } catch (error) {
          if (options.method === 'POST' || !isTransient(error) || attempt >= retry.attempts) throw error;
          const wait = Math.min(retry.maxWaitMs, retryAfterMs(error) ?? retry.baseMs * 2 ** (attempt - 1));
          log.info(`GitHub answered ${statusOf(error) ?? 'with a network error'} to ${options.method} ${String(options.url)}; trying again in ${wait} ms (attempt ${attempt + 1} of ${retry.attempts}).`);
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    });
  }

  /**
   * The sticky comment carrying `marker`, looked up page by page (oldest first) and stopping
   * at the first trusted one. Comments by another account carrying the marker are only trusted
   * when the token is that account's (a PAT), which costs one more request, only in that case.
   */
  async findStickyComment(issue: number, marker: string): Promise<IssueComment | undefined> {
    const untrusted: IssueComment[] = [];
    const iterator = this.octokit.paginate.iterator(this.octokit.rest.issues.listComments, { ...this.repo, issue_number: issue, per_page: 100 });
    for await (const page of iterator) {
      const comments = page.data as IssueComment[];
      const found = findSticky(comments, marker);
      if (found) return found;
      untrusted.push(...comments.filter((c) => isMarked(c, marker)));
    }
    if (untrusted.length === 0) return undefined;
    const login = await this.ownLogin();
    return login === undefined ? undefined : findSticky(untrusted, marker, login);
  }

  /** The sticky comment of every server `job` has commented on, each as `findStickyComment` finds it. */
  async stickyCommentsOfJob(issue: number, job: string): Promise<IssueComment[]> {
    const comments = (await this.octokit.paginate(this.octokit.rest.issues.listComments, { ...this.repo, issue_number: issue, per_page: 100 })) as IssueComment[];
    const marked = comments.filter((c) => stickyMarkerOf(c.body ?? '')?.job === job);
    const markers = new Set(marked.map((c) => stickyMarkerOf(c.body ?? '')!.marker));
    const login = marked.some((c) => !isOwn(c)) ? await this.ownLogin() : undefined;
    return [...markers].map((marker) => findSticky(marked, marker, login)).filter((c): c is IssueComment => c !== undefined);
  }

  async createComment(issue: number, body: string): Promise<IssueComment> {
    const { data } = await this.octokit.rest.issues.createComment({ ...this.repo, issue_number: issue, body });
    return data as IssueComment;
  }

  async updateComment(id: number, body: string): Promise<IssueComment> {
    const { data } = await this.octokit.rest.issues.updateComment({ ...this.repo, comment_id: id, body });
    return data as IssueComment;
  }

  async labels(issue: number): Promise<string[]> {
    const labels = await this.octokit.paginate(this.octokit.rest.issues.listLabelsOnIssue, { ...this.repo, issue_number: issue, per_page: 100 });
    return labels.map((l) => l.name);
  }

  /** Who last added `label` to the issue, and when (GitHub's timestamp), from its event timeline (at most 10 pages read). */
  async labeled(issue: number, label: string): Promise<{ by: string; at?: string } | undefined> {
    let last: { by: string; at?: string } | undefined;
    let pages = 0;
    const iterator = this.octokit.paginate.iterator(this.octokit.rest.issues.listEvents, { ...this.repo, issue_number: issue, per_page: 100 });
    for await (const page of iterator) {
      for (const event of page.data as Array<{ event?: string; label?: { name?: string }; actor?: { login?: string } | null; created_at?: string }>) {
        if (event.event !== 'labeled' || event.label?.name !== label || !event.actor?.login) continue;
        last = { by: event.actor.login, ...(typeof event.created_at === 'string' ? { at: event.created_at } : {}) };
      }
      if (++pages >= 10) break;
    }
    return last;
  }

  /** A file's text at a ref through the contents API; null when it does not exist there. */
  async fileAtRef(path: string, ref: string): Promise<string | null> {
    try {
      const { data } = await this.octokit.rest.repos.getContent({ ...this.repo, path, ref, mediaType: { format: 'raw' } });
      return typeof data === 'string' ? data : Buffer.from(data as unknown as ArrayBuffer).toString('utf8');
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw error;
    }
  }

  /** The pull request as the REST API returns it (the shape of an event's `pull_request`). */
  async pullRequest(issue: number): Promise<Record<string, unknown> & { head: { sha: string } }> {
    const { data } = await this.octokit.rest.pulls.get({ ...this.repo, pull_number: issue });
    return data as unknown as Record<string, unknown> & { head: { sha: string } };
  }

  /** An account's permission on the repository: `permission` (admin, write, read, none) and its role's name. */
  async permission(login: string): Promise<{ permission: string; role?: string }> {
    const { data } = await this.octokit.rest.repos.getCollaboratorPermissionLevel({ ...this.repo, username: login });
    const role = (data as { role_name?: unknown }).role_name;
    return { permission: data.permission, ...(typeof role === 'string' ? { role } : {}) };
  }

  /** The issues carrying `label`, open and closed (pull requests left out), oldest first. */
  async issuesWithLabel(label: string): Promise<RepoIssue[]> {
    const issues = await this.octokit.paginate(this.octokit.rest.issues.listForRepo, { ...this.repo, state: 'all', labels: label, sort: 'created', direction: 'asc', per_page: 100 });
    return (issues as Array<RepoIssue & { pull_request?: unknown }>).filter((issue) => issue.pull_request === undefined);
  }

  async createIssue(title: string, body: string, labels: string[]): Promise<RepoIssue> {
    const { data } = await this.octokit.rest.issues.create({ ...this.repo, title, body, labels });
    return data as RepoIssue;
  }

  async updateIssue(issue: number, change: { title?: string; body?: string; state?: 'open' | 'closed'; state_reason?: 'completed' | 'not_planned' }): Promise<RepoIssue> {
    const { data } = await this.octokit.rest.issues.update({ ...this.repo, issue_number: issue, ...change });
    return data as RepoIssue;
  }

  private loginPromise: Promise<string | undefined> | undefined;

  /** The token's own account; undefined for an installation token (GITHUB_TOKEN cannot ask). */
  ownLogin(): Promise<string | undefined> {
    this.loginPromise ??= this.octokit.rest.users.getAuthenticated().then(
      ({ data }) => data.login,
      () => undefined,
    );
    return this.loginPromise;
  }
}

function retryAfterMs(error: unknown): number | undefined {
  const headers = (error as { response?: { headers?: Record<string, string | undefined> } }).response?.headers;
  const value = headers?.['retry-after'];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}
