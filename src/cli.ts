#!/usr/bin/env node

// V8's compile cache where Node has it (22.3 and later, reached through `process.getBuiltinModule`;
// Node 20 has no cache and loads nothing for it): the CLI's code is compiled once per Node
// version and read back from the cache after that, which is most of what loading it costs. The
// cache is where Node puts it by default (node-compile-cache in the OS temp directory);
// NODE_COMPILE_CACHE moves it and NODE_DISABLE_COMPILE_CACHE turns it off, as for any Node
// program. Only the CLI turns it on: the library and the runtime leave their host's settings
// alone. It applies to modules loaded after this call, hence the rest is imported below.
//
// No top-level await: the package's bin is this module bundled as CommonJS
// (scripts/build-package.mjs), where the import below becomes a require() one tick later.
if (Number(process.versions.node.split('.')[0]) >= 22) {
  const node = process as NodeJS.Process & { getBuiltinModule?: (id: 'node:module') => { enableCompileCache?: () => unknown } };
  node.getBuiltinModule?.('node:module').enableCompileCache?.();
}

void import('./cli/process.js').then(({ runCli }) => runCli());
