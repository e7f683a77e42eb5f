/**
 * A local stand-in for the few GitHub REST endpoints the Action calls, so the real Octokit of
 * `@actions/github` can be pointed at it with GITHUB_API_URL: issues (listed by label and state,
 * created, edited, closed: the watch mode's) and issue comments (paginated with
 * Link headers like GitHub's), labels, issue events, the contents API, pulls, collaborator
 * permissions, and a switch to make any route fail with a chosen status a number of times.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MockComment {
  id: number;
  body: string;
  user: { login: string; type: 'Bot' | 'User' };
  created_at: string;
  html_url: string;
}

interface Failure {
  method: string;
  path: RegExp;
  status: number;
  times: number;
  /** Run the request anyway, then answer with the failure (a POST that "landed" but errored). */
  afterEffect?: boolean;
}

export interface MockIssue {
  id: number;
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  state_reason: string | null;
  labels: Array<{ name: string }>;
  user: { login: string; type: 'Bot' | 'User' };
  html_url: string;
}

export interface LoggedRequest {
  method: string;
  path: string;
  status: number;
}

export class GitHubMock {
  readonly comments = new Map<number, MockComment[]>();
  readonly labels = new Map<number, string[]>();
  readonly events = new Map<number, Array<{ event: string; label?: { name: string }; actor: { login: string }; created_at?: string }>>();
  /** ref → path → text */
  readonly files = new Map<string, Map<string, string>>();
  /** Pull requests as pulls.get returns them (the fields the Action reads). */
  readonly pulls = new Map<number, { head: { sha: string; repo?: { full_name: string } }; base?: { sha: string; ref: string; repo: { full_name: string } }; labels?: Array<{ name: string }> }>();
  /** login → permission on the repository (admin, write, read, none), with an optional role name; anyone else has read, as on a public repository. */
  readonly permissions = new Map<string, { permission: string; role_name?: string }>();
  /** Issues (not pull requests) by number, as the issues API creates and edits them. */
  readonly issues = new Map<number, MockIssue>();
  readonly requests: LoggedRequest[] = [];
  /** GitHub caps per_page at 100; tests lower it to exercise pagination. */
  maxPageSize = 100;
  private failures: Failure[] = [];
  private nextId = 1000;
  private nextIssue = 100;
  private server: Server | undefined;
  url = '';

  constructor(readonly repo = 'acme/tools') {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  reset(): void {
    this.comments.clear();
    this.labels.clear();
    this.events.clear();
    this.files.clear();
    this.pulls.clear();
    this.permissions.clear();
    this.issues.clear();
    this.requests.length = 0;
    this.failures = [];
    this.maxPageSize = 100;
  }

  clearFailures(): void {
    this.failures = [];
  }

  fail(method: string, path: RegExp, status: number, times = 1, afterEffect = false): void {
    this.failures.push({ method, path, status, times, afterEffect });
  }

  addComment(issue: number, body: string, user: MockComment['user'] = { login: 'github-actions[bot]', type: 'Bot' }): MockComment {
    const comment: MockComment = { id: this.nextId++, body, user, created_at: new Date().toISOString(), html_url: `https://github.com/${this.repo}/pull/${issue}#issuecomment-${this.nextId}` };
    const list = this.comments.get(issue) ?? [];
    list.push(comment);
    this.comments.set(issue, list);
    return comment;
  }

  /** Requests matching method and path, e.g. count('POST', /comments$/). */
  count(method: string, path: RegExp): number {
    return this.requests.filter((r) => r.method === method && path.test(r.path)).length;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const body = await readBody(req);
    const send = (status: number, data: unknown, headers: Record<string, string> = {}) => {
      this.requests.push({ method, path: url.pathname, status });
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      res.writeHead(status, { 'content-type': typeof data === 'string' ? 'application/vnd.github.raw' : 'application/json; charset=utf-8', ...headers });
      res.end(text);
    };
    if (req.headers.authorization !== 'token test-token') return send(401, { message: 'Bad credentials' });

    const failure = this.failures.find((f) => f.method === method && f.path.test(url.pathname) && f.times > 0);
    if (failure && !failure.afterEffect) {
      failure.times--;
      return send(failure.status, { message: failure.status === 403 ? 'Resource not accessible by integration' : 'Server Error' });
    }
    const answer = (status: number, data: unknown, headers?: Record<string, string>) => {
      if (failure?.afterEffect) {
        failure.times--;
        return send(failure.status, { message: 'Server Error' });
      }
      return send(status, data, headers);
    };

    const prefix = `/repos/${this.repo}`;
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
    let m: RegExpExecArray | null;
    if (method === 'GET' && path === '/user') return answer(403, { message: 'Resource not accessible by integration' });
    if (path === '/issues' && method === 'GET') {
      const state = url.searchParams.get('state') ?? 'open';
      const labels = (url.searchParams.get('labels') ?? '').split(',').filter((l) => l !== '');
      const found = [...this.issues.values()].filter((i) => (state === 'all' || i.state === state) && labels.every((l) => i.labels.some((x) => x.name === l)));
      return answer(200, ...this.page(found, url));
    }
    if (path === '/issues' && method === 'POST') {
      const data = JSON.parse(body) as { title: string; body?: string; labels?: string[] };
      const number = this.nextIssue++;
      const issue: MockIssue = {
        id: this.nextId++,
        number,
        title: data.title,
        body: data.body ?? '',
        state: 'open',
        state_reason: null,
        labels: (data.labels ?? []).map((name) => ({ name })),
        user: { login: 'github-actions[bot]', type: 'Bot' },
        html_url: `https://github.com/${this.repo}/issues/${number}`,
      };
      this.issues.set(number, issue);
      return answer(201, issue);
    }
    if ((m = /^\/issues\/(\d+)$/.exec(path)) && (method === 'PATCH' || method === 'GET')) {
      const issue = this.issues.get(Number(m[1]));
      if (!issue) return answer(404, { message: 'Not Found' });
      if (method === 'PATCH') {
        const data = JSON.parse(body) as Partial<Pick<MockIssue, 'title' | 'body' | 'state' | 'state_reason'>>;
        Object.assign(issue, data);
      }
      return answer(200, issue);
    }
    if ((m = /^\/issues\/(\d+)\/comments$/.exec(path))) {
      const issue = Number(m[1]);
      if (method === 'GET') return answer(200, ...this.page(this.comments.get(issue) ?? [], url));
      if (method === 'POST') {
        const comment = this.addComment(issue, String((JSON.parse(body) as { body: string }).body));
        return answer(201, comment);
      }
    }
    if ((m = /^\/issues\/comments\/(\d+)$/.exec(path)) && method === 'PATCH') {
      const id = Number(m[1]);
      const comment = [...this.comments.values()].flat().find((c) => c.id === id);
      if (!comment) return answer(404, { message: 'Not Found' });
      comment.body = String((JSON.parse(body) as { body: string }).body);
      return answer(200, comment);
    }
    if ((m = /^\/issues\/(\d+)\/labels$/.exec(path)) && method === 'GET') {
      return answer(200, ...this.page((this.labels.get(Number(m[1])) ?? []).map((name, i) => ({ id: i + 1, name })), url));
    }
    if ((m = /^\/issues\/(\d+)\/events$/.exec(path)) && method === 'GET') {
      return answer(200, ...this.page(this.events.get(Number(m[1])) ?? [], url));
    }
    if ((m = /^\/pulls\/(\d+)$/.exec(path)) && method === 'GET') {
      const pull = this.pulls.get(Number(m[1]));
      return pull ? answer(200, { number: Number(m[1]), ...pull }) : answer(404, { message: 'Not Found' });
    }
    if ((m = /^\/collaborators\/([^/]+)\/permission$/.exec(path)) && method === 'GET') {
      const login = decodeURIComponent(m[1] as string);
      const { permission, role_name } = this.permissions.get(login) ?? { permission: 'read' };
      return answer(200, { permission, role_name: role_name ?? permission, user: { login } });
    }
    if ((m = /^\/contents\/(.+)$/.exec(path)) && method === 'GET') {
      const file = this.files.get(url.searchParams.get('ref') ?? 'HEAD')?.get(decodeURIComponent(m[1] as string));
      if (file === undefined) return answer(404, { message: 'Not Found' });
      if (String(req.headers.accept ?? '').includes('raw')) return answer(200, file);
      return answer(200, { type: 'file', encoding: 'base64', content: Buffer.from(file).toString('base64') });
    }
    return send(404, { message: `Not Found (mock has no ${method} ${url.pathname})` });
  }

  private page<T>(items: T[], url: URL): [T[], Record<string, string>] {
    const size = Math.min(this.maxPageSize, Number(url.searchParams.get('per_page') ?? 30));
    const page = Number(url.searchParams.get('page') ?? 1);
    const slice = items.slice((page - 1) * size, page * size);
    const headers: Record<string, string> = {};
    if (page * size < items.length) {
      const next = new URL(url);
      next.searchParams.set('page', String(page + 1));
      next.searchParams.set('per_page', String(size));
      headers.link = `<${next.href}>; rel="next"`;
    }
    return [slice, headers];
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (data += chunk));
    req.on('end', () => resolve(data));
  });
}
