import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * Tests run the real CLI (lib/cli.js), the package as it ships (lib/bundle/, what its bin and
 * exports name) and the real Action (dist/index.js): build them from the current sources once,
 * before any test, so no test rebuilds what another is running.
 */
export default function setup(): void {
  const root = resolve(import.meta.dirname, '..');
  execFileSync(process.execPath, [resolve(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [resolve(root, 'scripts/build-package.mjs'), '--quiet'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [resolve(root, 'scripts/build-action.mjs'), '--bundle-only', '--quiet'], { cwd: root, stdio: 'inherit' });
}
