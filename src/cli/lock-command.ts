import { LockfileError, parseLockfile, renderLockfile } from '../contract/lockfile.js';
import { assertWritable, readTextIfExists, writeTextAtomically } from '../files.js';
import { summarizeContracts } from './contracts-text.js';
import { CommandContext, type Runner } from './context.js';
import { compileTarget, forEachTarget } from './servers.js';
import { resolveTargets } from './targets.js';

/** `lock`: write each server's lockfile, atomically, and say whether it changed. */
export const run: Runner = async (args, io) => {
  const context = new CommandContext(args, io);
  const { targets } = await resolveTargets(args, io.cwd);
  const failed = await forEachTarget(context, targets, 'locked', async (target) => {
    // Before starting the server: a lockfile that cannot be written needs no server to report.
    await assertWritable(target.lockfile, 'the lockfile');
    const existing = await readTextIfExists(target.lockfile, 'the lockfile');
    const { contracts } = await compileTarget(context, target);
    const text = renderLockfile(contracts);
    let status = existing === undefined ? 'created' : existing === text ? 'unchanged' : 'updated';
    if (existing !== undefined && existing !== text) {
      try {
        parseLockfile(existing, target.lockfile);
      } catch (error) {
        if (error instanceof LockfileError) status = `replaced a lockfile that could not be trusted: ${error.problem}`;
      }
    }
    if (existing !== text) await writeTextAtomically(target.lockfile, text, 'the lockfile');
    io.stdout(`Locked ${contracts.server.name}: ${summarizeContracts(contracts)} → ${context.display(target.lockfile)} (${status})\n`);
  });
  return failed > 0 ? 2 : 0;
};
