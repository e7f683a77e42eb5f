/**
 * Published packages at exact versions, installed from the npm registry into a scratch folder of
 * this checkout (`.tmp/published/`, ignored by git), never as dependencies of the package: the
 * tests that hold the pinning proxy to real releases start them from there. Each version is
 * installed once per checkout (npm's cache makes a reinstall cheap); an install goes to a
 * folder of its own and is moved in place whole, so two test files never see half of one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './processes.js';

const STORE = join(ROOT, '.tmp', 'published');

/** The folder of `name@version` as installed (its own package.json at the top). */
export function publishedPackage(name: string, version: string): string {
  const home = join(STORE, `${name.replace('/', '+')}@${version}`);
  const dir = join(home, 'node_modules', name);
  if (existsSync(join(dir, 'package.json'))) return dir;
  mkdirSync(STORE, { recursive: true });
  const staging = mkdtempSync(join(STORE, 'installing-'));
  writeFileSync(join(staging, 'package.json'), '{ "private": true }\n');
  try {
    execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', `${name}@${version}`], { cwd: staging, stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`could not install ${name}@${version} from the npm registry: ${(error as { stderr?: Buffer }).stderr?.toString() ?? String(error)}`);
  }
  try {
    renameSync(staging, home);
  } catch {
    // Another test file installed it meanwhile: theirs is as good.
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

/** The argv that starts a published package's bin with `args` (node, its script, args). */
export function publishedBin(name: string, version: string, args: string[] = []): string[] {
  const dir = publishedPackage(name, version);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (bin === undefined) throw new Error(`${name}@${version} has no bin`);
  return [process.execPath, join(dir, bin), ...args];
}
