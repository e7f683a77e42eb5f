import { canonicalJson } from '../protocol/index.js';
import type { Contracts } from '../contract/model.js';
import { renderContractsText } from './contracts-text.js';
import { CommandContext, type Runner } from './context.js';
import { compileTarget, forEachTarget } from './servers.js';
import { resolveTargets } from './targets.js';

/** `compile`: the contracts of each server, as text or JSON (several servers: keyed by name). */
export const run: Runner = async (args, io) => {
  const context = new CommandContext(args, io);
  const { targets } = await resolveTargets(args, io.cwd);
  const results: Array<[string, Contracts]> = [];
  const failed = await forEachTarget(context, targets, 'compiled', async (target) => {
    const { contracts } = await compileTarget(context, target);
    results.push([target.name, contracts]);
    if (args.format === 'text') io.stdout(renderContractsText(contracts));
  });
  if (args.format === 'json' && (targets.length > 1 || failed === 0)) {
    io.stdout(canonicalJson(targets.length === 1 ? results[0]![1] : Object.fromEntries(results), true));
  }
  return failed > 0 ? 2 : 0;
};
