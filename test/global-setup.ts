import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/** Tests run the real CLI (lib/cli.js) and import the build, so build once before them. */
export default function setup(): void {
  const root = resolve(import.meta.dirname, '..');
  execFileSync(process.execPath, [resolve(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
}
