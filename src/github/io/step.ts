/**
 * The step itself: where it runs (the workspace and scratch space a runner provides), its log,
 * its job summary, and the credentials kept out of all three. Text a pull request or a server
 * wrote goes to the log through `log`: redacted, and never a workflow command.
 */
import * as core from '@actions/core';
import { mkdir, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import type { ContractSource } from '../../compile/index.js';
import { repoRootOf } from './baseline.js';
import { inert } from './log.js';
import type { FileRoots } from './paths.js';
import { Redactor } from './redact.js';

/** Credentials the run was given: masked in the log by the runner, and replaced by *** in everything written. */
export const redactor = new Redactor((secret) => core.setSecret(secret));

/** A server's URL, header values and the variables passed to it by name are credentials until shown otherwise. */
export function registerCredentials(source: ContractSource | undefined): void {
  if (!source || source.kind === 'file') return;
  redactor.addUrl(source.url);
  redactor.addHeaderValues(source.headers);
  if (source.kind === 'command') redactor.addEnvironment(process.env, source.passEnv ?? []);
}

/** The log, for text a pull request or a server may have written: no credential, never a workflow command. */
export const log = {
  info: (message: string) => core.info(inert(redactor.redact(message))),
  debug: (message: string) => core.debug(redactor.redact(message)),
  warning: (message: string) => core.warning(redactor.redact(message)),
};

/** The job summary; outside a runner (no GITHUB_STEP_SUMMARY) the report file is enough. */
export async function writeSummary(markdown: string): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) {
    log.info('No GITHUB_STEP_SUMMARY: the job summary is only in the report file ("report-path").');
    return;
  }
  await core.summary.addRaw(redactor.redact(markdown)).write();
}

/** Where the Action runs: the workspace and scratch space a runner provides. */
export interface Runner {
  workspace: string;
  temp: string;
  repoRoot: string;
  /** Where files may be read (the workspace) and written (the workspace, RUNNER_TEMP). */
  roots: FileRoots;
}

export async function runnerOf(): Promise<Runner> {
  const workspace = resolve(process.env.GITHUB_WORKSPACE ?? process.cwd());
  const temp = resolve(process.env.RUNNER_TEMP ?? tmpdir());
  await mkdir(temp, { recursive: true });
  const root = async (path: string) => ({ path, real: await realpath(path).catch(() => path) });
  const roots = { workspace: await root(workspace), temp: await root(temp) };
  // git names the root with its links resolved; paths are shown under the workspace as the runner names it.
  const gitRoot = await repoRootOf(workspace);
  const repoRoot = gitRoot === undefined || gitRoot === roots.workspace.real ? workspace : gitRoot;
  return { workspace, temp, repoRoot, roots };
}
