/**
 * The registry package a server's command runs, and the exact version it resolves to: `npx`
 * runs an npm package, `uvx` (and `uv tool run`) a PyPI one. A pin records the exact version
 * and rewrites the command to name it, so the pinned server is the one that runs and pinning
 * again pins the same thing.
 *
 * How a spec becomes a version, as the launcher itself would resolve it:
 * - npm: an exact version is taken as written (no registry asked); a tag (`latest`, or none) or
 *   a range is asked of the registry npm is configured with: `npm view <spec> version --json`,
 *   the highest version it lists.
 * - PyPI: `==X` or `@X` exact is taken as written; anything else is asked of uv's resolver:
 *   `uv pip compile -` on the spec, the version it pins the package to.
 * When that fails (offline, a private registry without credentials, uv not installed) the
 * server is not pinned: the error says why and how to write the version yourself.
 *
 * Commands that run anything else (a local script, a binary, `docker run`, a git URL for
 * npx/uvx) have no registry version: they are pinned as launched (their contracts are held all
 * the same), and the watch mode has no release of theirs to check.
 */
import { execFile } from 'node:child_process';
import { basename } from 'node:path';
import { promisify } from 'node:util';
import type { PackagePin } from '../contract/pins.js';

const run = promisify(execFile);

/** Where in a command the package spec sits, and what it says. */
export interface PackageCommand {
  registry: PackagePin['registry'];
  name: string;
  /** The version, range or tag as written ('' when none: the latest). */
  requested: string;
  /** The index of the argument holding the spec. */
  at: number;
  /** How that argument writes the spec. */
  form: 'npm' | 'uvx-positional' | 'uvx-from' | 'npm-package-option';
}

/** npx options that take a value as the next argument. */
const NPX_VALUE_OPTIONS = new Set(['-p', '--package', '-c', '--call', '--registry', '--cache', '--userconfig', '-w', '--workspace']);
/** uvx / `uv tool run` options that take a value as the next argument. */
const UVX_VALUE_OPTIONS = new Set([
  '--from', '--with', '--with-editable', '--with-requirements', '--python', '-p', '--index', '--index-url', '--extra-index-url', '--default-index', '--find-links', '-f',
  '--directory', '--project', '--config-file', '--cache-dir', '--constraints', '-c', '--overrides', '--index-strategy', '--resolution', '--prerelease', '--exclude-newer',
  '--keyring-provider', '--link-mode', '--refresh-package', '--reinstall-package', '--upgrade-package', '-P', '--color', '--env-file',
]);

const EXACT_NPM = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const NPM_NAME = /^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;
const PYPI_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** The package `command args` runs from a registry, if it runs one. */
export function packageOf(command: string, args: readonly string[]): PackageCommand | undefined {
  const program = basename(command).replace(/\.(?:cmd|exe)$/i, '');
  if (program === 'npx') return npxPackage(args);
  if (program === 'uvx') return uvxPackage(args, 0);
  if (program === 'uv' && args[0] === 'tool' && args[1] === 'run') return uvxPackage(args, 2);
  return undefined;
}

function npxPackage(args: readonly string[]): PackageCommand | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') return npmSpec(args[i + 1], i + 1, 'npm');
    const [option, inline] = splitOption(arg);
    if (option === '-p' || option === '--package') return inline !== undefined ? npmSpec(inline, i, 'npm-package-option') : npmSpec(args[i + 1], i + 1, 'npm');
    if (arg.startsWith('-')) {
      if (inline === undefined && NPX_VALUE_OPTIONS.has(option)) i += 1;
      continue;
    }
    return npmSpec(arg, i, 'npm');
  }
  return undefined;
}

/** `--name=value` as the option and its inline value; any other argument as it is, with no inline value. */
function splitOption(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=');
  return arg.startsWith('--') && eq !== -1 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
}

function npmSpec(spec: string | undefined, at: number, form: PackageCommand['form']): PackageCommand | undefined {
  if (spec === undefined) return undefined;
  const split = spec.indexOf('@', 1);
  const name = split === -1 ? spec : spec.slice(0, split);
  const requested = split === -1 ? '' : spec.slice(split + 1);
  // A git URL, a path, a tarball: no registry version.
  if (!NPM_NAME.test(name) || /[:/\\]/.test(requested)) return undefined;
  return { registry: 'npm', name, requested, at, form };
}

function uvxPackage(args: readonly string[], start: number): PackageCommand | undefined {
  for (let i = start; i < args.length; i++) {
    const arg = args[i] as string;
    const [option, inline] = splitOption(arg);
    if (option === '--from') return inline !== undefined ? undefined : pypiSpec(args[i + 1], i + 1, 'uvx-from');
    if (arg.startsWith('-')) {
      if (inline === undefined && UVX_VALUE_OPTIONS.has(option)) i += 1;
      continue;
    }
    return pypiSpec(arg, i, 'uvx-positional');
  }
  return undefined;
}

function pypiSpec(spec: string | undefined, at: number, form: PackageCommand['form']): PackageCommand | undefined {
  if (spec === undefined) return undefined;
  const match = /^([A-Za-z0-9._-]+)(\[[^\]]*\])?(?:(@|==)(.+))?$/.exec(spec);
  if (match === null || !PYPI_NAME.test(match[1] as string)) return undefined;
  const requested = match[4] ?? '';
  // A URL or a path after @: no registry version.
  if (/[:/\\]/.test(requested)) return undefined;
  return { registry: 'pypi', name: match[1] as string, requested, at, form };
}

/** Whether the spec already names one exact version (nothing to ask a registry). */
export function isExact(pkg: PackageCommand): boolean {
  return pkg.registry === 'npm' ? EXACT_NPM.test(pkg.requested) : /^\d+(?:\.\d+)*(?:(?:a|b|rc|\.post|\.dev)\d+)*$/.test(pkg.requested);
}

/** The arguments with the package spec naming `version` exactly. */
export function withVersion(args: readonly string[], pkg: PackageCommand, version: string): string[] {
  const out = [...args];
  const original = out[pkg.at] as string;
  switch (pkg.form) {
    case 'npm':
      out[pkg.at] = `${pkg.name}@${version}`;
      break;
    case 'npm-package-option':
      out[pkg.at] = `${original.slice(0, original.indexOf('=') + 1)}${pkg.name}@${version}`;
      break;
    case 'uvx-positional':
      out[pkg.at] = `${pkg.name}${extrasOf(original)}@${version}`;
      break;
    case 'uvx-from':
      out[pkg.at] = `${pkg.name}${extrasOf(original)}==${version}`;
      break;
  }
  return out;
}

function extrasOf(spec: string): string {
  return /\[[^\]]*\]/.exec(spec)?.[0] ?? '';
}

/** Why a version could not be resolved: said to the user as it is. */
export class ResolveError extends Error {}

/** Runs a registry client: (program, args, stdin) → stdout. Replaced in tests. */
export type Runner = (program: string, args: string[], input?: string) => Promise<string>;

export const runClient: Runner = async (program, args, input) => {
  const child = run(program, args, { timeout: 60_000, maxBuffer: 16 * 1024 * 1024, env: process.env });
  if (input !== undefined) {
    child.child.stdin?.end(input);
  }
  return (await child).stdout;
};

/** The exact version `pkg` resolves to now (see the top of this file). */
export async function resolveVersion(pkg: PackageCommand, client: Runner = runClient): Promise<string> {
  if (isExact(pkg)) return pkg.requested;
  return pkg.registry === 'npm' ? resolveNpm(pkg, client) : resolvePypi(pkg, client);
}

async function resolveNpm(pkg: PackageCommand, client: Runner): Promise<string> {
  const spec = `${pkg.name}@${pkg.requested === '' ? 'latest' : pkg.requested}`;
  let out: string;
  try {
    out = await client('npm', ['view', spec, 'version', '--json']);
  } catch (error) {
    throw new ResolveError(`"npm view ${spec} version" failed (${clientFailure(error)})`);
  }
  let versions: unknown;
  try {
    versions = out.trim() === '' ? [] : JSON.parse(out);
  } catch {
    throw new ResolveError(`"npm view ${spec} version" did not print JSON`);
  }
  const list = (Array.isArray(versions) ? versions : [versions]).filter((v): v is string => typeof v === 'string' && EXACT_NPM.test(v));
  const highest = list.sort(compareVersions).at(-1);
  if (highest === undefined) throw new ResolveError(`the npm registry has no version of ${pkg.name} matching "${pkg.requested || 'latest'}"`);
  return highest;
}

async function resolvePypi(pkg: PackageCommand, client: Runner): Promise<string> {
  const requirement = pkg.requested === '' || pkg.requested === 'latest' ? pkg.name : `${pkg.name}${/^[<>=!~]/.test(pkg.requested) ? '' : '=='}${pkg.requested}`;
  let out: string;
  try {
    out = await client('uv', ['pip', 'compile', '-', '--quiet', '--no-header', '--no-annotate'], `${requirement}\n`);
  } catch (error) {
    throw new ResolveError(`uv's resolver ("uv pip compile") failed for ${requirement} (${clientFailure(error)})`);
  }
  const wanted = normalizedPypi(pkg.name);
  for (const line of out.split('\n')) {
    const match = /^([A-Za-z0-9._-]+)(?:\[[^\]]*\])?==([^\s;]+)/.exec(line.trim());
    if (match !== null && normalizedPypi(match[1] as string) === wanted) return match[2] as string;
  }
  throw new ResolveError(`uv's resolver did not pin ${pkg.name}`);
}

/** PEP 503: names compare lower-cased, runs of -, _ and . as one -. */
function normalizedPypi(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

function clientFailure(error: unknown): string {
  const e = error as { code?: string | number; stderr?: string; message?: string };
  if (e.code === 'ENOENT') return 'the program is not installed';
  const detail = (e.stderr ?? '').split('\n').map((l) => l.trim()).find((l) => /err|error|not found|404|E\d{3}/i.test(l)) ?? (e.stderr ?? e.message ?? '').trim().split('\n')[0];
  return (detail ?? 'no detail').slice(0, 300);
}

/** Semver-ish order on release numbers (pre-releases before their release). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core, pre] = v.split('+')[0]!.split(/-(.*)/s) as [string, string | undefined];
    return { nums: core.split('.').map(Number), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) if ((x.nums[i] ?? 0) !== (y.nums[i] ?? 0)) return (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}
