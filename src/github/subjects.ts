/**
 * The servers of a run: one from `command` / `url` / `file`, or those of a config file, each
 * paired with its baseline. The head's config says how to reach each server now; the base's
 * config says which servers existed and where their lockfiles were (policy/servers.ts). Both
 * are read through a Tree: the checkout, or a commit by SHA (the base always; the head too
 * under a privileged event).
 */
import { join, relative, resolve } from 'node:path';
import { DEFAULT_TIMEOUT_MS, sourceFlags, splitCommand, type ContractSource } from '../compile/index.js';
import { CONFIG_NAME, noServersError, parseConfig, type AllowEntry, type Config, type Target } from '../config.js';
import { LOCKFILE_NAME } from '../contract/lockfile.js';
import type { SeverityOverrides } from '../rules/index.js';
import { UserError, errorMessage } from '../errors.js';
import { canonicalJson } from '../protocol/index.js';
import { planServers, type PlannedServer } from '../policy/servers.js';
import { repoPath, type ActionInputs, type Tree } from './io/index.js';
import type { CliSelection } from './render/index.js';

/** A server to review, with what the comment and the CLI call it. */
export interface Subject {
  /** How to reach the server at the head; absent when the head's config dropped it. */
  target?: Target;
  id: string;
  /** The config name or the `name` input; else the server's own name once known. */
  name?: string;
  selection: CliSelection;
  /** The head's lockfile (the base's, for a dropped server), from the repository root and from the working directory. */
  lockfileRepoPath: string;
  lockfileLocalPath: string;
  /** The lockfile at the base (absolute path, read at the base commit); absent for a server the base did not have. */
  baseLockfile?: string;
  /** What changed about the server itself (moved, added, removed), for the comment. */
  planNote?: string;
}

export interface RunSubjects {
  subjects: Subject[];
  allow: AllowEntry[];
  /** The config file whose allow list applies, from the repository root, and whether the head has it. */
  allowFile: { path: string; exists: boolean };
  /**
   * The severity overrides that judge this run: the base's config's `rules`, never the head's
   * (a pull request does not re-level the rules that judge it; its change applies once merged).
   */
  rules: SeverityOverrides;
  /** About the run as a whole (the base's config could not be used…), for every server's comment. */
  notes: string[];
}

/** Where paths are read from: the repository root (lockfile paths in messages are relative to it). */
export interface Place {
  repoRoot: string;
  workspace: string;
}

export async function subjectsOf(inputs: ActionInputs, place: Place, head: Tree, base: Tree | undefined): Promise<RunSubjects> {
  const wd = inputs.workingDirectory;
  const dir = repoPath(place.repoRoot, wd);
  const configPath = inputs.config ?? join(wd, CONFIG_NAME);
  const configText = await head.read(configPath, 'the config file');
  if (configText === null && inputs.config !== undefined) throw new UserError(`There is no config file at ${inputs.config} (the "config" input) in ${head.describe}.`);
  const config = configText === null ? undefined : parseConfig(configText, configPath, shown(place, configPath));
  const lockfile = inputs.lockfile ?? resolve(wd, LOCKFILE_NAME);
  const allowFile = { path: shown(place, configPath), exists: config !== undefined };
  const listsServers = config !== undefined && config.targets.length > 0;
  const notes: string[] = [];
  const baseConfig = base ? await baseConfigOf(configPath, base, place, notes) : undefined;
  const rules = rulesOf(config, baseConfig, base !== undefined, notes);
  // With compile: false the head lockfile is all there is to read: no source needed.
  const single = singleSource(inputs) ?? (!inputs.compile && !listsServers ? { kind: 'file' as const, path: lockfile } : undefined);
  if (single) {
    const local = relative(wd, lockfile);
    const displaySource = single.kind === 'command' ? { ...single, cwd: undefined } : single.kind === 'file' ? { ...single, path: relative(wd, single.path) } : single;
    const subject: Subject = {
      target: { name: inputs.name ?? 'default', source: single, lockfile },
      id: inputs.name ?? repoPath(place.repoRoot, lockfile),
      selection: { flags: sourceFlags(displaySource), lockfileFlag: local === LOCKFILE_NAME ? '' : ` --lockfile ${local}`, dir: dir === '.' ? '' : dir },
      lockfileRepoPath: repoPath(place.repoRoot, lockfile),
      lockfileLocalPath: local,
      baseLockfile: lockfile,
    };
    if (inputs.name !== undefined) subject.name = inputs.name;
    return { subjects: [subject], allow: config?.allow ?? [], allowFile, rules, notes };
  }
  if (!config) {
    throw new UserError(
      `No MCP server to review: set the input "command" (e.g. node dist/server.js), "url" or "file", or commit ${CONFIG_NAME} ` +
        `listing your servers${inputs.workingDirectory === place.workspace ? '' : ` in ${dir}`} (or point "config" at it).`,
    );
  }
  if (!listsServers) throw noServersError(shown(place, config.path), 'the input "command", "url" or "file"');
  const located = (targets: Target[]) => targets.map((t) => ({ name: t.name, lockfile: repoPath(place.repoRoot, t.lockfile), target: t }));
  // A base config without servers (only an allow list) reviewed a server named by the workflow: like no config.
  const baseTargets = baseConfig && baseConfig.targets.length > 0 ? located(baseConfig.targets) : undefined;
  let planned = planServers(located(config.targets), baseTargets, inputs.server);
  if (planned.length === 0) {
    const known = config.targets.map((t) => t.name).join(', ') || '(none)';
    throw new UserError(`There is no server "${inputs.server}" in ${shown(place, config.path)}${baseTargets ? ' nor in the base\'s' : ''}. Its servers are: ${known}.`);
  }
  if (inputs.lockfile !== undefined) {
    if (planned.length !== 1) throw new UserError('"lockfile" names one file, but the config lists several servers: pick one with "server" (a matrix over the servers works well).');
    // The workflow names the lockfile: it is the baseline's path too.
    const only = planned[0] as (typeof planned)[number];
    const path = repoPath(place.repoRoot, inputs.lockfile);
    planned = [{ name: only.name, ...(only.head ? { head: { ...only.head, lockfile: path, target: { ...only.head.target, lockfile: inputs.lockfile } } } : {}), baseLockfile: path }];
  }
  const configFlag = relative(wd, config.path) === CONFIG_NAME ? '' : ` --config ${relative(wd, config.path)}`;
  const subjects = planned.map((p) => subjectOf(p, inputs, place, configFlag, dir));
  return { subjects, allow: config.allow, allowFile, rules, notes };
}

function subjectOf(planned: PlannedServer<{ name: string; lockfile: string; target: Target }>, inputs: ActionInputs, place: Place, configFlag: string, dir: string): Subject {
  const lockfileRepoPath = planned.head?.lockfile ?? (planned.baseLockfile as string);
  const subject: Subject = {
    id: planned.name,
    name: planned.name,
    selection: { flags: `--server ${planned.name}${configFlag}`, lockfileFlag: inputs.lockfile !== undefined ? ` --lockfile ${relative(inputs.workingDirectory, inputs.lockfile)}` : '', dir: dir === '.' ? '' : dir },
    lockfileRepoPath,
    lockfileLocalPath: relative(inputs.workingDirectory, join(place.repoRoot, lockfileRepoPath)),
  };
  if (planned.head) subject.target = { ...planned.head.target, source: withInputOverrides(planned.head.target.source, inputs) };
  if (planned.baseLockfile !== undefined) subject.baseLockfile = join(place.repoRoot, planned.baseLockfile);
  if (planned.note !== undefined) subject.planNote = planned.note;
  return subject;
}

/**
 * The `rules` that judge the run: the base's (or the head's, when there is no base to protect,
 * as on a push). A head that changes them is told they apply once merged.
 */
function rulesOf(head: Config | undefined, base: Config | undefined, hasBase: boolean, notes: string[]): SeverityOverrides {
  const headRules = head?.rules ?? {};
  if (!hasBase) return headRules;
  const baseRules = base?.rules ?? {};
  if (canonicalJson(headRules) !== canonicalJson(baseRules)) {
    notes.push('This pull request changes the "rules" of the config: a pull request is judged by the rules of its base, so its own apply once it is merged.');
  }
  return baseRules;
}

/**
 * The config as committed at the base, or undefined when the base has none (or an invalid one:
 * the pull request may be the fix), in which case each server's baseline is its head path.
 */
async function baseConfigOf(configPath: string, base: Tree, place: Place, notes: string[]): Promise<Config | undefined> {
  let text: string | null;
  try {
    text = await base.read(configPath, 'the config file');
  } catch (error) {
    throw new UserError(`Could not read ${shown(place, configPath)} at ${base.describe}, which says which servers the base has and where their lockfiles are: ${errorMessage(error)}`);
  }
  if (text === null) return undefined;
  try {
    return parseConfig(text, configPath, `${shown(place, configPath)} at ${base.describe}`);
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    notes.push(`${error.message.replace(/\s*\n\s*/g, ' ')} So each server is compared with the lockfile at its path in this commit.`);
    return undefined;
  }
}

function singleSource(inputs: ActionInputs): ContractSource | undefined {
  const timeoutMs = inputs.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (inputs.command !== undefined) return withInputOverrides({ kind: 'command', command: splitCommand(inputs.command), cwd: inputs.workingDirectory, timeoutMs }, inputs);
  if (inputs.url !== undefined) return withInputOverrides({ kind: 'url', url: inputs.url, headers: inputs.headers, timeoutMs }, inputs);
  if (inputs.file !== undefined) return { kind: 'file', path: inputs.file };
  return undefined;
}

function withInputOverrides(source: ContractSource, inputs: ActionInputs): ContractSource {
  if (source.kind === 'file') return source;
  const out = { ...source };
  if (inputs.timeoutMs !== undefined) out.timeoutMs = inputs.timeoutMs;
  if (out.kind === 'url' && Object.keys(inputs.headers).length > 0) out.headers = { ...out.headers, ...inputs.headers };
  if (inputs.clientCapabilities !== undefined) out.clientCapabilities = inputs.clientCapabilities;
  // The server is the code under review: it never inherits the runner's environment (env.ts).
  if (out.kind === 'command') Object.assign(out, { isolateEnv: true, passEnv: [...new Set([...(out.passEnv ?? []), ...inputs.passEnv])] });
  return out;
}

/** A path as people read it: from the repository root. */
function shown(place: Place, path: string): string {
  return repoPath(place.repoRoot, path) || path;
}
