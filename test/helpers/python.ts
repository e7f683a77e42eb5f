import { spawnSync } from 'node:child_process';

/**
 * A Python with `fastmcp`, for the tests against real Python servers: MCG_PYTHON names it, else
 * `python3` is tried. `skip` is empty when it works, else why the tests are skipped (their title
 * says it).
 */
export function findPython(): { python: string; skip: string } {
  const python = process.env.MCG_PYTHON ?? 'python3';
  const probe = spawnSync(python, ['-c', 'import fastmcp'], { encoding: 'utf8', timeout: 60_000 });
  if (probe.error !== undefined) return { python, skip: `skipped: ${python} cannot be run (${probe.error.message}); set MCG_PYTHON to a Python with fastmcp` };
  if (probe.status !== 0) return { python, skip: `skipped: ${python} has no fastmcp (pip install fastmcp, or set MCG_PYTHON to a Python that has it)` };
  return { python, skip: '' };
}
