import { dirname, relative, resolve } from 'node:path';
import { z } from 'zod';
import { splitCommand } from './compile/argv.js';
import { passEnvProblem } from './compile/env.js';
import { redactUrl } from './compile/redact.js';
import { CLIENT_CAPABILITIES, DEFAULT_TIMEOUT_MS, clientCapabilitiesOf, shellQuote, type ClientCapability, type ContractSource } from './compile/source.js';
import { LOCKFILE_NAME } from './contract/lockfile.js';
import { isRuleKind, type SeverityOverrides } from './rules/index.js';
import { UserError } from './errors.js';
import { readTextIfExists } from './files.js';
import { SEVERITIES } from './protocol/report.js';
import type { AllowEntry } from './policy/allow.js';
import { DRIFT_ACTIONS, DRIFT_CLASSES, driftPolicyOf, type DriftPolicy } from './policy/drift.js';

export { CONFIG_NAME, findConfig } from './config-location.js';

const envMap = z.record(z.string(), z.string());

const envName = z.string().superRefine((name, context) => {
  const problem = passEnvProblem(name);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

const serverSchema = z
  .object({
    command: z.union([z.string().min(1), z.array(z.string()).min(1)]).optional(),
    cwd: z.string().optional(),
    env: envMap.optional(),
    timeout: z.number().positive().max(3600).optional(),
    url: z.string().url().optional(),
    headers: envMap.optional(),
    file: z.string().optional(),
    lockfile: z.string().optional(),
    lenientStdout: z.boolean().optional(),
    // Variables of the environment the server gets by name (see the environment policy, env.ts).
    passEnv: z.array(envName).optional(),
    // The client capabilities initialize declares; [] declares none.
    capabilities: z.array(z.enum(CLIENT_CAPABILITIES)).optional(),
  })
  .strict()
  // "command" with "url": start the server, then reach it over HTTP.
  .refine((s) => (s.file !== undefined ? s.command === undefined && s.url === undefined : s.command !== undefined || s.url !== undefined), {
    message: 'needs "command" (optionally with "url" for a server that serves HTTP), "url", or "file"',
  });

const allowSchema = z
  .object({
    fingerprint: z.string().min(4),
    reason: z.string().min(1),
    expires: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'expires must be a date like 2026-12-31')
      .refine(isCalendarDate, 'expires must be a real calendar date (this day does not exist)')
      .optional(),
  })
  .strict();

/** YYYY-MM-DD naming a day that exists (not 2026-02-30). */
function isCalendarDate(day: string): boolean {
  const time = Date.parse(`${day}T00:00:00Z`);
  return Number.isFinite(time) && new Date(time).toISOString().slice(0, 10) === day;
}

const severity = z.enum(SEVERITIES);

/**
 * `rules`: re-level a rule, for both directions or per direction. Reports show a re-levelled
 * delta as such (its `defaultSeverity`), so the policy stays visible wherever it applies.
 */
const rulesSchema = z
  .record(z.string(), z.union([severity, z.object({ input: severity.optional(), output: severity.optional() }).strict()]))
  .superRefine((rules, context) => {
    for (const kind of Object.keys(rules)) {
      if (!isRuleKind(kind)) context.addIssue({ code: 'custom', path: [kind], message: `"${kind}" is not a rule kind (docs/rules.md lists them)` });
    }
  });

const configSchema = z
  .object({
    $schema: z.string().optional(),
    // Optional: a file that holds only "allow" serves a workflow that names its one server
    // itself (the Action's command/url/file input, the CLI's --command/--url/--file).
    servers: z
      .record(z.string().regex(/^[\w.-]+$/, 'server names may use letters, digits, "_", "-" and "."'), serverSchema)
      .refine((servers) => Object.keys(servers).length > 0, { message: 'list at least one server (its "command", "url" or "file"), or leave "servers" out of a file that only holds "allow"' })
      .optional(),
    allow: z.array(allowSchema).optional(),
    rules: rulesSchema.optional(),
    // What the pinning proxy does with drift from a pin (proxy --lockfile), unless --on-drift says.
    onDrift: z.union([z.enum(DRIFT_ACTIONS), z.partialRecord(z.enum(DRIFT_CLASSES), z.enum(DRIFT_ACTIONS))]).optional(),
  })
  .strict();

export type { AllowEntry };

/** One server to guard: where its contracts come from and where its lockfile lives. */
export interface Target {
  name: string;
  source: ContractSource;
  lockfile: string;
}

export interface Config {
  path: string;
  /** Empty when the file holds only an allow list. */
  targets: Target[];
  allow: AllowEntry[];
  /** Severity overrides (`rules`), by rule kind. */
  rules: SeverityOverrides;
  /** `onDrift`, when the file sets it. */
  onDrift?: DriftPolicy;
}

/** Read and validate a config file; paths inside it are relative to the file. */
export async function loadConfig(path: string): Promise<Config> {
  const text = await readTextIfExists(path, 'the config file');
  if (text === undefined) throw new UserError(`The config file ${path} does not exist.`);
  return parseConfig(text, path);
}

/**
 * The file's own text quoted in an error (a key, a path, the JSON around a syntax error), with
 * its line breaks shown as \n: one problem stays one line, and a break in a key cannot start a
 * paragraph of the message (the PR comment reads each paragraph as the Action's text).
 */
function escapeBreaks(text: string): string {
  return text.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

/**
 * Validate the text of a config file that lives (or lived, at some commit) at `path`; paths
 * inside it resolve against that file's directory. `label` names it in errors (e.g. "… at main").
 */
export function parseConfig(text: string, path: string, label = path): Config {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UserError(`The config file ${label} is not valid JSON (${escapeBreaks((error as Error).message)}).`);
  }
  const parsed = configSchema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => escapeBreaks(`${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`));
    throw new UserError(`The config file ${label} is invalid:\n  ${problems.join('\n  ')}`);
  }
  const base = dirname(resolve(path));
  const targets = Object.entries(parsed.data.servers ?? {}).map(([name, server]) => {
    const timeoutMs = (server.timeout ?? DEFAULT_TIMEOUT_MS / 1000) * 1000;
    const cwd = resolve(base, server.cwd ?? '.');
    let source: ContractSource;
    const clientCapabilities = server.capabilities && { clientCapabilities: server.capabilities };
    if (server.command !== undefined) {
      const command = typeof server.command === 'string' ? splitCommand(server.command) : server.command;
      source = { kind: 'command', command, cwd, env: server.env, timeoutMs, ...clientCapabilities };
      if (server.url !== undefined) Object.assign(source, { url: server.url, headers: server.headers });
      if (server.lenientStdout) source.lenientStdout = true;
      if (server.passEnv) source.passEnv = server.passEnv;
    } else if (server.url !== undefined) {
      source = { kind: 'url', url: server.url, headers: server.headers, timeoutMs, ...clientCapabilities };
    } else {
      source = { kind: 'file', path: resolve(base, server.file as string) };
    }
    // Each server's lockfile sits, by default, beside the server (its cwd).
    return { name, source, lockfile: server.lockfile ? resolve(base, server.lockfile) : resolve(cwd, LOCKFILE_NAME) };
  });
  const seen = new Map<string, string>();
  for (const target of targets) {
    const other = seen.get(target.lockfile);
    if (other) {
      throw new UserError(`The config file ${label} gives servers "${other}" and "${target.name}" the same lockfile (${escapeBreaks(target.lockfile)}): set "lockfile" for one of them.`);
    }
    seen.set(target.lockfile, target.name);
  }
  const onDrift = parsed.data.onDrift === undefined ? {} : { onDrift: driftPolicyOf(parsed.data.onDrift) };
  return { path, targets, allow: parsed.data.allow ?? [], rules: (parsed.data.rules ?? {}) as SeverityOverrides, ...onDrift };
}

/** A source as the JSON of a config file's server entry (for "commit this" advice; URL credentials redacted). */
export function configEntryFor(source: ContractSource, base: string): Record<string, unknown> {
  switch (source.kind) {
    case 'file':
      return { file: relative(base, source.path) || '.' };
    case 'url':
      return {
        url: redactUrl(source.url),
        ...(source.headers ? { headers: Object.fromEntries(Object.keys(source.headers).map((h) => [h, '…'])) } : {}),
        ...capabilitiesEntry(source),
        timeout: source.timeoutMs / 1000,
      };
    case 'command':
      return {
        command: source.command.map(shellQuote).join(' '),
        ...(source.cwd && relative(base, source.cwd) ? { cwd: relative(base, source.cwd) } : {}),
        ...(source.url ? { url: redactUrl(source.url) } : {}),
        ...(source.lenientStdout ? { lenientStdout: true } : {}),
        ...(source.passEnv?.length ? { passEnv: source.passEnv } : {}),
        ...capabilitiesEntry(source),
        timeout: source.timeoutMs / 1000,
      };
  }
}

function capabilitiesEntry(source: ContractSource & { kind: 'command' | 'url' }): { capabilities?: ClientCapability[] } {
  return source.clientCapabilities === undefined ? {} : { capabilities: clientCapabilitiesOf(source) };
}

/**
 * The error for a config used as the list of servers when it lists none: it holds only an
 * allow list, which applies when the server is named some other way (`source`).
 */
export function noServersError(label: string, source: string): UserError {
  return new UserError(`The config file ${label} lists no servers: it only holds an allow list, which applies when ${source} names the server. Give one of those, or add a "servers" object to the file.`);
}

/** Pick the targets to run: the named one, or all of them. */
export function selectTargets(config: Config, name: string | undefined): Target[] {
  if (config.targets.length === 0) throw noServersError(config.path, '--command, --url or --file');
  if (name === undefined) return config.targets;
  const target = config.targets.find((t) => t.name === name);
  if (!target) {
    const known = config.targets.map((t) => t.name).join(', ') || '(none)';
    throw new UserError(`There is no server "${name}" in ${config.path}. Its servers are: ${known}.`);
  }
  return [target];
}
