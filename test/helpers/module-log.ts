import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * A probe of what a node process loads: a resolve hook, installed with `--import`, that
 * appends every module URL it resolves to the file named by MODULE_LOG.
 */
export interface ModuleLog {
  /** The node arguments that install the hook. */
  nodeArgs: string[];
  /** Run `start` with the environment that names a fresh log; returns every URL logged. */
  record(start: (env: NodeJS.ProcessEnv) => void): string[];
}

/** Writes the hook into `dir` (a scratch directory the caller removes). */
export function moduleLog(dir: string): ModuleLog {
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
let log;
export async function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(log, result.url + '\\n');
  return result;
}
`,
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';
register(new URL('./hooks.mjs', import.meta.url), { data: { log: process.env.MODULE_LOG } });
`,
  );
  return {
    nodeArgs: ['--import', pathToFileURL(join(dir, 'register.mjs')).href],
    record(start) {
      const log = join(dir, `log-${Math.random().toString(36).slice(2)}.txt`);
      writeFileSync(log, '');
      start({ ...process.env, MODULE_LOG: log });
      return readFileSync(log, 'utf8').split('\n').filter(Boolean);
    },
  };
}
