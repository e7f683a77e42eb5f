import { resolve } from 'node:path';
import { compileFilesToDiff } from '../compile/dump.js';
import { diffContracts } from '../diff/index.js';
import { UserError } from '../errors.js';
import { assertWritable, readTextIfExists } from '../files.js';
import { CLI_COMMAND } from '../version.js';
import { CommandContext, type Runner } from './context.js';
import { expiredEntryNotes, judge, readUsageOption, releaseOf, renderReport, usageWarning, verdictText, writeArtifact } from './review.js';
import { configFileOf, configOf } from './targets.js';

/**
 * `diff OLD NEW`: two files (lockfiles or dumps), never a server: only the file reader and the
 * diff engine are loaded. The gate and the allow list are the same as `check`'s.
 */
export const run: Runner = async (args, io) => {
  const context = new CommandContext(args, io);
  if (args.positionals.length !== 2) throw new UserError(`diff compares two files: ${CLI_COMMAND} diff OLD NEW (each a lockfile, a tools/list dump or what compile --format json printed).`);
  const [oldPath, newPath] = args.positionals.map((p) => resolve(io.cwd, p)) as [string, string];
  if (args.artifact !== undefined) await assertWritable(args.artifact, 'the delta artifact');
  const usage = await readUsageOption(context);
  const [[previous, current], config] = await Promise.all([compileFilesToDiff(oldPath, newPath), configOf(args, io.cwd)]);
  const release = releaseOf(args, current.contracts.server.version);
  const diffed = await diffContracts(previous.contracts, current.contracts, { ...(config === undefined ? {} : { severityOverrides: config.rules }), ...(release !== undefined ? { release } : {}) });
  const allow = config?.allow ?? [];
  const names = [previous.contracts.server.name, current.contracts.server.name];
  const judgement = judge({ server: current.contracts.server.name, names, report: diffed }, args.failOn, allow, { usage });
  const { report } = judgement;
  const review = { server: current.contracts.server.name, report };
  usageWarning(context, report);
  // SARIF results point at the lines of the new file.
  const sarifText = args.format === 'sarif' ? await readTextIfExists(newPath, 'the file') : undefined;
  io.stdout(await renderReport(report, args.format, { color: args.color, sarifFile: { path: args.positionals[1]!, text: sarifText } }));
  const verdict = verdictText(judgement, args.failOn, configFileOf(context, config));
  if (verdict !== '') context.tell(`\n${verdict}`);
  await writeArtifact(context, report);
  for (const note of expiredEntryNotes([review], allow)) context.warn(note);
  return judgement.gate.pass ? 0 : 1;
};
