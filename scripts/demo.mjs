// The README's first command: lock the bundled example server (v1), then check its next
// version (v2) against the lockfile, as a pull request would. Prints each command it runs.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const lockfile = 'examples/inventory/mcp-contracts.lock.json';

function run(args, expectedStatus) {
  console.log(`\n$ mcp-contract-guard ${args.map((a) => (/\s/.test(a) ? `"${a}"` : a)).join(' ')}`);
  const result = spawnSync(process.execPath, ['lib/cli.js', ...args], { cwd: root, stdio: 'inherit' });
  if (result.status !== expectedStatus) {
    console.error(`\nThe demo expected exit code ${expectedStatus} and got ${result.status}.`);
    process.exit(1);
  }
}

console.log('1. Lock the contracts of the example server, version 1:');
run(['lock', '--command', 'node examples/inventory/v1.mjs', '--lockfile', lockfile], 0);

console.log('\n2. Check version 2 against that lockfile, as CI does on a pull request (exit code 1: drift):');
run(['check', '--command', 'node examples/inventory/v2.mjs', '--lockfile', lockfile], 1);

console.log(`
That is the whole loop. Next:
  - what an agent is told when it calls v2 as it called v1:  docs/runtime.md, "Try it on the example"
  - the same review on every pull request:                   docs/action.md`);
