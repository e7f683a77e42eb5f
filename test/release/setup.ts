/**
 * The release tests' setup, once per run: the CLI and the Action built from the current sources
 * (as the main suite's setup builds them), the package packed as `npm publish` would pack it (or
 * the tarball `scripts/pack-check.mjs` already made, named by MCG_TARBALL), and the registry
 * stand-in that serves it as `mcp-contract-guard@<version>`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import buildLibAndDist from '../global-setup.js';
import { startLocalRegistry } from '../helpers/registry.js';
import { prepareNpmHome, ROOT, WORK } from './paths.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  buildLibAndDist();
  const tarball = process.env.MCG_TARBALL ? resolve(process.env.MCG_TARBALL) : pack();
  const upstream = execFileSync('npm', ['config', 'get', 'registry'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const registry = await startLocalRegistry(tarball, upstream);
  const { npmCache, npmUserConfig } = prepareNpmHome();
  project.provide('registry', registry.url);
  project.provide('tarball', tarball);
  project.provide('version', registry.version);
  project.provide('npmCache', npmCache);
  project.provide('npmUserConfig', npmUserConfig);
  return () => registry.close();
}

/** `npm pack` of the checkout (lib/ was just built, so its scripts need not run again). */
function pack(): string {
  const dir = join(WORK, 'pack');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const [file] = readdirSync(dir).filter((name) => name.endsWith('.tgz'));
  if (file === undefined) throw new Error(`npm pack wrote no tarball in ${dir}`);
  return join(dir, file);
}
