import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * A probe of what a node process loads: a resolve hook, installed with `--import`, that
 * appends every module URL it resolves to the file named by MODULE_LOG, and the same for each
 * file `require()` loads (the package's bundle is CommonJS, which Node 20's resolve hooks do not
 * see): CommonJS's loader, `Module._load`, wrapped to log the file it resolves, as a file URL.
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
    `import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';
register(new URL('./hooks.mjs', import.meta.url), { data: { log: process.env.MODULE_LOG } });
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (!Module.isBuiltin(request)) appendFileSync(process.env.MODULE_LOG, pathToFileURL(Module._resolveFilename(request, parent, isMain)).href + '\\n');
  return load.apply(this, arguments);
};
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
