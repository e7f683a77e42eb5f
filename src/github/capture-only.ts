/**
 * `mode: capture`, the first half of the strongest setup: a job whose token may do nothing and
 * that holds no secret starts the pull request's servers and writes what they expose to the
 * capture file; a second job, which runs no code of the pull request, reads the base, reviews,
 * gates and comments (`capture-file`). What the code of the pull request can reach here is
 * worth nothing: the file it could falsify is read over there as hostile data.
 */
import * as core from '@actions/core';
import { join } from 'node:path';
import { CompileError } from '../compile/index.js';
import { renderLockfile } from '../contract/lockfile.js';
import { UserError, errorMessage } from '../errors.js';
import { CAPTURE_FILE_NAME, CAPTURE_KIND, CAPTURE_VERSION, nullPrototypeRecord, renderCaptureFile, type CapturedServer } from '../protocol/index.js';
import {
  checkoutTree,
  log,
  planEvent,
  redactor,
  registerCredentials,
  tamperingMessage,
  writeOutputFile,
  writeSummary,
  type ActionInputs,
  type CommandFileGuard,
  type RunContext,
  type Runner,
} from './io/index.js';
import { captureLive } from './draft.js';
import { plural } from './text.js';
import { privilegePolicy } from './privilege.js';
import { subjectsOf } from './subjects.js';

export async function captureOnly(inputs: ActionInputs, context: RunContext, runner: Runner, commandFiles: CommandFileGuard): Promise<void> {
  const plan = planEvent(context, inputs.baselineRef);
  const head = checkoutTree(runner.roots);
  // The base is the reviewing job's business: here only the head's config says what to start.
  const { subjects } = await subjectsOf(inputs, runner, head, undefined);
  for (const subject of subjects) registerCredentials(subject.target?.source);
  // A capture job is the pull request's code running: never under an event that carries secrets.
  const policy = privilegePolicy(plan.eventName, inputs.unsafeAllowPrivilegedEvents);
  if (policy.warning) core.warning(policy.warning);
  const live = subjects.flatMap((s) => (s.target && s.target.source.kind !== 'file' ? [{ name: s.name ?? s.id, kind: s.target.source.kind }] : []));
  const refusal = policy.refusal(live);
  if (refusal) throw new UserError(refusal);
  const servers = nullPrototypeRecord<CapturedServer>();
  for (const subject of subjects) {
    const source = subject.target?.source;
    // A dump or lockfile named by "file" is read by the reviewing job from its own checkout.
    if (!subject.target || !source || source.kind === 'file') continue;
    core.startGroup(`Capturing ${subject.name ?? subject.id}`);
    try {
      const headLockText = await head.read(subject.target.lockfile, 'the lockfile');
      const { compiled, notes } = await captureLive(source, headLockText, subject);
      for (const warning of compiled.warnings) log.info(`lint: ${warning}`);
      servers[subject.id] = { lockfile: renderLockfile(compiled.contracts), notes, warnings: compiled.warnings };
    } catch (error) {
      // The reviewing job says why in its comment, as it would for a server it started.
      if (!(error instanceof CompileError || error instanceof UserError)) throw error;
      log.info(error.message);
      servers[subject.id] = { error: error.message };
    } finally {
      core.endGroup();
    }
  }
  // Every server is stopped: what it wrote to the runner's files is undone, and the file says so.
  const tampered = await commandFiles.restore();
  const repository = `${context.repo.owner}/${context.repo.repo}`;
  const path = join(runner.temp, 'mcp-contract-guard', CAPTURE_FILE_NAME);
  const file = { version: CAPTURE_VERSION, kind: CAPTURE_KIND, repository, headSha: plan.headSha, tampered, servers } as const;
  await writeOutputFile(path, redactor.redact(renderCaptureFile({ ...file, tampered: [...tampered] })), runner.roots, 'the capture file');
  core.setOutput('capture-path', path);
  const failed = Object.values(servers).filter((s) => 'error' in s).length;
  const captured = Object.keys(servers).length - failed;
  log.info(`Captured ${plural(captured, 'server')}${failed > 0 ? ` (${failed} could not be: the review says why)` : ''} into ${path}: upload it for the reviewing job ("capture-file").`);
  await writeSummary(`## MCP contract capture\n\n${plural(captured, 'server')} captured at \`${plan.headSha.slice(0, 7)}\`${failed > 0 ? `, ${failed} could not be` : ''}; the reviewing job compares them with the base and comments.\n`).catch((error: unknown) => log.info(`Could not write the job summary: ${errorMessage(error)}`));
  if (tampered.length > 0) core.setFailed(tamperingMessage(tampered));
}
