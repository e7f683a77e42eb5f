import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * Tests run the real CLI (lib/cli.js) and the real Action (dist/index.js): build both from the
 * current sources once, before any test, so no test rebuilds what another is running.
 */
export default function setup(): void {
  const root = resolve(import.meta.dirname, '..');
  execFileSync(process.execPath, [resolve(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [resolve(root, 'scripts/build-action.mjs'), '--bundle-only', '--quiet'], { cwd: root, stdio: 'inherit' });
}
