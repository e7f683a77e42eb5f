/**
 * `pin <client configuration>`: lock every server a client configuration starts into one pin
 * file, each with the exact package version its `npx`/`uvx` line resolves to (pin.ts in
 * contract/, packages.ts in pin/), and with `--rewrite`, have the configuration start each
 * server through the pinning proxy (a backup of it kept, its other content untouched).
 *
 * All or nothing: a server that cannot be pinned (a variable without a value here, a version
 * no registry resolves, a server that does not start) is reported, and then nothing is written,
 * neither the pin file nor the configuration. A pin file already there that does not match its
 * digests is never overwritten: it is not the one that was reviewed.
 */
import { copyFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { splitCommand } from '../compile/argv.js';
import { DEFAULT_TIMEOUT_MS, type ContractSource } from '../compile/source.js';
import { LockfileError } from '../contract/lockfile.js';
import { ENTRY_KINDS, countOf, nameRecord, type Contracts } from '../contract/model.js';
import { PIN_FILE_NAME, parsePinFile, renderPinFile, type Launch, type PinFile, type PinnedServer } from '../contract/pins.js';
import { UserError, errorMessage } from '../errors.js';
import { readTextIfExists, writeTextAtomically } from '../files.js';
import { describePolicy, parseDriftPolicy } from '../policy/drift.js';
import { expandServer, readClientConfig, redactSecrets, rewriteClientConfig, type ClientConfig, type ConfiguredServer, type Expanded, type Replacement } from '../pin/client-config.js';
import { ResolveError, packageOf, resolveVersion, withVersion } from '../pin/packages.js';
import { CLI_COMMAND, PACKAGE_AT_VERSION } from '../version.js';
import { CommandContext, formatError, type Runner } from './context.js';

/** A server pinned: what goes in the pin file, and what the rewrite starts. */
interface Pinned {
  server: ConfiguredServer;
  pin: PinnedServer;
  /** The server's command as the configuration writes it (variables unexpanded), the exact version in. */
  written?: string[];
}

export const run: Runner = async (args, io) => {
  const context = new CommandContext(args, io);
  const [given, ...rest] = args.positionals;
  if (given === undefined) throw new UserError(`pin needs the client configuration to read, e.g. ${CLI_COMMAND} pin ~/Library/Application\\ Support/Claude/claude_desktop_config.json (or .vscode/mcp.json, .cursor/mcp.json).`);
  if (rest.length > 0) throw new UserError(`Unexpected argument "${rest[0]}": pin reads one client configuration.`);
  const configPath = resolve(io.cwd, given);
  const text = await readTextIfExists(configPath, 'the client configuration');
  if (text === undefined) throw new UserError(`There is no client configuration at ${context.display(configPath)}.`);
  const config = readClientConfig(context.display(configPath), text);
  const pinPath = resolve(io.cwd, args.flags.lockfile ?? PIN_FILE_NAME);
  const onDrift = args.flags['on-drift'];
  if (onDrift !== undefined) {
    if (!args.flags.rewrite) throw new UserError('--on-drift goes in the rewritten configuration: it only applies with --rewrite.');
    parseDriftPolicy(onDrift, '--on-drift');
  }
  if (args.flags['proxy-command'] !== undefined && !args.flags.rewrite) throw new UserError('--proxy-command only applies with --rewrite.');

  // A pin file already there must be one that was not edited: it is never silently replaced.
  const existing = await readPinFile(pinPath, context);
  const chosen = args.flags.server === undefined ? config.servers : config.servers.filter((server) => server.name === args.flags.server);
  if (chosen.length === 0) {
    const names = config.servers.map((server) => JSON.stringify(server.name)).join(', ') || 'none';
    throw new UserError(args.flags.server === undefined ? `${config.path} lists no servers.` : `${config.path} has no server "${args.flags.server}"; its servers are ${names}.`);
  }

  const pinned: Pinned[] = [];
  const failed: string[] = [];
  for (const configured of chosen) {
    const server = unwrapProxy(configured);
    let secrets: string[] = [];
    try {
      const expanded = expandServer(config, server, process.env);
      secrets = expanded.secrets;
      pinned.push(await pinServer(context, config, server, expanded));
    } catch (error) {
      failed.push(server.name);
      io.stderr(`${redactSecrets(formatError(error, args.debug), secrets).replace(/^error: /, `error: server "${server.name}": `)}\n`);
    }
  }
  if (failed.length > 0) {
    io.stderr(`error: ${failed.length} of ${chosen.length} servers could not be pinned (${failed.join(', ')}); nothing was written.\n`);
    return 2;
  }

  const servers = nameRecord<PinnedServer>();
  if (args.flags.server !== undefined && existing !== undefined) Object.assign(servers, existing.servers);
  for (const { server, pin } of pinned) servers[server.name] = pin;
  const file: PinFile = { configuration: configurationFrom(pinPath, configPath), servers };
  const rendered = renderPinFile(file);
  const before = existing === undefined ? undefined : await readTextIfExists(pinPath, 'the pin file');
  if (before !== rendered) await writeTextAtomically(pinPath, rendered, 'the pin file');
  const status = before === undefined ? 'created' : before === rendered ? 'unchanged' : 'updated';
  for (const { server, pin } of pinned) io.stdout(`Pinned ${server.name}: ${describePin(pin)}\n`);
  io.stdout(`→ ${context.display(pinPath)} (${status})\n`);

  if (args.flags.rewrite) {
    const proxy = proxyCommand(args.flags['proxy-command']);
    const replacements = pinned.map((each) => proxied(each, proxy, pinPath, onDrift));
    const rewritten = rewriteClientConfig(config, replacements);
    if (rewritten === text) {
      io.stdout(`${config.path} already starts each server through the pinning proxy (unchanged).\n`);
    } else {
      const backup = backupPath(configPath);
      await copyFile(configPath, backup);
      await writeTextAtomically(configPath, rewritten, 'the client configuration');
      const policy = onDrift === undefined ? 'the default drift policy' : describePolicy(parseDriftPolicy(onDrift, '--on-drift'));
      io.stdout(`Rewrote ${config.path}: ${replacements.length === 1 ? 'its server starts' : `its ${replacements.length} servers start`} through the pinning proxy (${policy}); the file as it was is in ${context.display(backup)}.\n`);
    }
  }
  return 0;
};

async function readPinFile(path: string, context: CommandContext): Promise<PinFile | undefined> {
  const text = await readTextIfExists(path, 'the pin file');
  if (text === undefined) return undefined;
  try {
    return parsePinFile(text, context.display(path));
  } catch (error) {
    if (!(error instanceof LockfileError)) throw error;
    throw new UserError(`${error.message} Nothing was overwritten: restore it from version control, or remove it to pin anew.`);
  }
}

/** Resolves the version, starts the server, captures its contracts: its pin. */
async function pinServer(context: CommandContext, config: ClientConfig, server: ConfiguredServer, expanded: Expanded): Promise<Pinned> {
  const say = (message: string) => context.progress(redactSecrets(`${server.name}: ${message}`, expanded.secrets));
  const launch: Launch = {};
  if (Object.keys(server.env).length > 0) launch.env = Object.keys(server.env);
  if (Object.keys(server.headers).length > 0) launch.headers = Object.keys(server.headers);
  if (server.cwd !== undefined) launch.cwd = server.cwd;
  let source: ContractSource;
  let written: string[] | undefined;
  if (expanded.command !== undefined) {
    let command = expanded.command;
    written = [server.command as string, ...server.args];
    const pkg = packageOf(command[0] as string, command.slice(1));
    if (pkg !== undefined) {
      say(`resolving the version of ${pkg.name} (${pkg.registry})`);
      let version: string;
      try {
        version = await resolveVersion(pkg);
      } catch (error) {
        if (!(error instanceof ResolveError)) throw error;
        const spec = pkg.registry === 'npm' ? `${pkg.name}@1.2.3` : `${pkg.name}==1.2.3`;
        throw new UserError(`cannot tell which version of ${pkg.name} "${written.join(' ')}" runs: ${error.message}. Write the exact version in ${config.path} (e.g. ${spec}) to pin it without asking a registry.`);
      }
      command = [command[0] as string, ...withVersion(command.slice(1), pkg, version)];
      written = [written[0] as string, ...withVersion(written.slice(1), pkg, version)];
      launch.package = { registry: pkg.registry, name: pkg.name, version };
    }
    launch.command = written;
    source = { kind: 'command', command, env: expanded.env, timeoutMs: DEFAULT_TIMEOUT_MS, ...(expanded.cwd !== undefined ? { cwd: resolve(config.workspace, expanded.cwd) } : { cwd: config.workspace }) };
  } else {
    launch.url = server.url as string;
    source = { kind: 'url', url: expanded.url as string, headers: expanded.headers, timeoutMs: DEFAULT_TIMEOUT_MS };
  }
  const { compileContracts } = await import('../compile/index.js');
  let contracts: Contracts;
  try {
    const compiled = await compileContracts(source, { onProgress: say, heal: context.args.heal });
    for (const warning of compiled.warnings) context.warn(redactSecrets(`${server.name}: ${warning}`, expanded.secrets));
    contracts = compiled.contracts;
  } catch (error) {
    throw new UserError(redactSecrets(errorMessage(error), expanded.secrets));
  }
  return { server, pin: { launch, contracts }, ...(written !== undefined ? { written } : {}) };
}

function describePin(pin: PinnedServer): string {
  const { contracts, launch } = pin;
  const counts = ENTRY_KINDS.filter((kind) => Object.keys(contracts[kind]).length > 0).map((kind) => countOf(kind, Object.keys(contracts[kind]).length));
  const what = launch.package !== undefined ? `${launch.package.name}@${launch.package.version}` : launch.url !== undefined ? launch.url : 'its command as written (no registry version)';
  const needs = launch.env === undefined ? '' : `; needs ${launch.env.join(', ')} (names only are stored)`;
  return `${what}, ${counts.join(', ') || 'nothing listed'}${needs}`;
}

/** Where the pin file records the configuration: relative to it when beside or below it, else absolute. */
function configurationFrom(pinPath: string, configPath: string): string {
  const rel = relative(dirname(pinPath), configPath);
  return rel.startsWith('..') || isAbsolute(rel) ? configPath : rel;
}

/**
 * How the rewritten configuration starts the proxy: --proxy-command, else this very installation,
 * by the script this process runs (the package's bin, lib/bundle/cli.cjs; a path found from this
 * module would depend on where the bundle put it).
 */
function proxyCommand(given: string | undefined): string[] {
  if (given !== undefined) return splitCommand(given);
  const cli = resolve(process.argv[1] as string);
  // Run from npx's cache, which npm may clear: the published package, at this version.
  if (/[\\/]_npx[\\/]/.test(cli)) return ['npx', '-y', PACKAGE_AT_VERSION];
  return [process.execPath, cli];
}

function proxied(each: Pinned, proxy: string[], pinPath: string, onDrift: string | undefined): Replacement {
  const { server } = each;
  const flags = ['proxy', '--lockfile', pinPath, '--server', server.name, ...(onDrift === undefined ? [] : ['--on-drift', onDrift])];
  const target =
    each.written !== undefined
      ? ['--', ...each.written]
      : ['--url', server.url as string, ...Object.entries(server.headers).flatMap(([name, value]) => ['--header', `${name}: ${value}`])];
  return { server, command: proxy[0] as string, args: [...proxy.slice(1), ...flags, ...target] };
}

/**
 * A server entry that already starts through the proxy (a configuration rewritten before) is
 * pinned as the server it proxies, so pinning again pins the same servers.
 */
function unwrapProxy(server: ConfiguredServer): ConfiguredServer {
  const argv = [server.command ?? '', ...server.args];
  const at = argv.indexOf('proxy');
  if (at === -1 || !argv.slice(at).includes('--lockfile') || !argv.slice(0, at).some((word) => /mcp-contract-guard|[\\/]cli\.js$/.test(word))) return server;
  const rest = argv.slice(at + 1);
  const separator = rest.indexOf('--');
  if (separator !== -1 && separator + 1 < rest.length) {
    const inner = rest.slice(separator + 1);
    return { ...server, command: inner[0] as string, args: inner.slice(1) };
  }
  const url = rest[rest.indexOf('--url') + 1];
  if (rest.includes('--url') && url !== undefined) {
    const headers: Record<string, string> = {};
    rest.forEach((word, i) => {
      const header = word === '--header' ? rest[i + 1] : undefined;
      const colon = header?.indexOf(':') ?? -1;
      if (header !== undefined && colon > 0) headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    });
    const { command: _command, ...others } = server;
    return { ...others, args: [], url, headers };
  }
  return server;
}

/** `<file>.bak`, or the first `<file>.bak.N` not taken: an earlier backup is never overwritten. */
function backupPath(path: string): string {
  if (!existsSync(`${path}.bak`)) return `${path}.bak`;
  for (let n = 1; n < 1000; n++) if (!existsSync(`${path}.bak.${n}`)) return `${path}.bak.${n}`;
  throw new UserError(`${path} has a thousand backups already: remove some before rewriting it again.`);
}
