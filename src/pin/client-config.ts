/**
 * The MCP client configurations people already have, read and rewritten in place:
 *
 * - Claude Desktop's `claude_desktop_config.json` and Cursor's `.cursor/mcp.json` (and the many
 *   clients that copied them): `{ "mcpServers": { name: { command, args, env } | { url, headers } } }`;
 * - VS Code's `.vscode/mcp.json`: `{ "servers": { name: { type, command, args, env, cwd } |
 *   { type: "http" | "sse", url, headers } }, "inputs": [...] }`, and its `settings.json`
 *   (`"mcp": { "servers": … }`).
 *
 * The files may hold comments and trailing commas (VS Code's do): they are read with
 * jsonc-parser, and a rewrite edits only the server entries it changes, so every other byte
 * (comments, order, other settings) is kept.
 *
 * Variables, as the clients expand them: `${input:ID}` (VS Code asks its user; pin reads the
 * environment variable named like the ID, upper-cased: `${input:github_token}` → GITHUB_TOKEN),
 * `${env:NAME}`, `${workspaceFolder}`, `${userHome}`, `${pathSeparator}`. Values that come from
 * them, and every value of an `env` or `headers` object, are secrets: they start the server, and
 * are never stored or printed (`secrets`).
 */
import { homedir } from 'node:os';
import { basename, dirname, sep } from 'node:path';
import { applyEdits, modify, parse, printParseErrorCode, type FormattingOptions, type ParseError } from 'jsonc-parser';
import { isJsonObject } from '../contract/model.js';
import { UserError } from '../errors.js';

export type ClientShape = 'mcpServers' | 'vscode' | 'vscode-settings';

/** One server of a client configuration, as written (variables unexpanded). */
export interface ConfiguredServer {
  name: string;
  /** Where its entry sits in the file (JSON path). */
  path: (string | number)[];
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
  /** VS Code's `type` (stdio, http, sse), when given. */
  type?: string;
}

export interface ClientConfig {
  path: string;
  text: string;
  shape: ClientShape;
  /** What `${workspaceFolder}` is: the folder holding `.vscode` or `.cursor`, else the file's own. */
  workspace: string;
  servers: ConfiguredServer[];
}

/** Read and check a client configuration; every problem names its place in the file. */
export function readClientConfig(path: string, text: string): ClientConfig {
  const errors: ParseError[] = [];
  const data: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0] as ParseError;
    const line = text.slice(0, first.offset).split('\n').length;
    throw new UserError(`${path} is not valid JSON (${printParseErrorCode(first.error)} on line ${line}).`);
  }
  if (!isJsonObject(data)) throw new UserError(`${path} is not a JSON object: it is not an MCP client configuration.`);
  let shape: ClientShape;
  let base: string[];
  if (data.mcpServers !== undefined) [shape, base] = ['mcpServers', ['mcpServers']];
  else if (data.servers !== undefined) [shape, base] = ['vscode', ['servers']];
  else if (isJsonObject(data.mcp) && data.mcp.servers !== undefined) [shape, base] = ['vscode-settings', ['mcp', 'servers']];
  else {
    throw new UserError(
      `${path} has no "mcpServers" object (Claude Desktop, Cursor), "servers" object (VS Code's .vscode/mcp.json) or "mcp.servers" (VS Code's settings.json): it is not an MCP client configuration pin can read.`,
    );
  }
  const servers = base.reduce<unknown>((at, key) => (isJsonObject(at) ? at[key] : undefined), data);
  if (!isJsonObject(servers)) throw new UserError(`${path}: "${base.join('.')}" is not an object of servers.`);
  const folder = dirname(path);
  const workspace = ['.vscode', '.cursor'].includes(basename(folder)) ? dirname(folder) : folder;
  return { path, text, shape, workspace, servers: Object.entries(servers).map(([name, entry]) => serverOf(path, [...base, name], name, entry)) };
}

function serverOf(file: string, path: string[], name: string, entry: unknown): ConfiguredServer {
  const where = `${file}: ${path.join('.')}`;
  if (!isJsonObject(entry)) throw new UserError(`${where} is not an object.`);
  const string = (key: string): string | undefined => {
    const value = entry[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') throw new UserError(`${where}.${key} must be a non-empty string.`);
    return value;
  };
  const strings = (key: string): string[] => {
    const value = entry[key];
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw new UserError(`${where}.${key} must be a list of strings.`);
    const bad = value.findIndex((item) => typeof item !== 'string');
    if (bad !== -1) throw new UserError(`${where}.${key}[${bad}] must be a string.`);
    return value as string[];
  };
  const record = (key: string): Record<string, string> => {
    const value = entry[key];
    if (value === undefined) return {};
    if (!isJsonObject(value)) throw new UserError(`${where}.${key} must be an object of strings.`);
    for (const [k, v] of Object.entries(value)) if (typeof v !== 'string') throw new UserError(`${where}.${key}.${k} must be a string.`);
    return value as Record<string, string>;
  };
  const server: ConfiguredServer = { name, path, args: strings('args'), env: record('env'), headers: record('headers') };
  const command = string('command');
  const url = string('url') ?? string('serverUrl');
  const type = string('type');
  const cwd = string('cwd');
  if (command !== undefined) server.command = command;
  if (url !== undefined) server.url = url;
  if (type !== undefined) server.type = type;
  if (cwd !== undefined) server.cwd = cwd;
  if (type !== undefined && !['stdio', 'http', 'sse', 'streamableHttp', 'streamable-http'].includes(type)) {
    throw new UserError(`${where}.type is "${type}": pin knows stdio, http and sse servers.`);
  }
  if (command === undefined && url === undefined) throw new UserError(`${where} has neither "command" nor "url": pin does not know how this server starts.`);
  if (command !== undefined && url !== undefined) throw new UserError(`${where} has both "command" and "url": give one.`);
  return server;
}

/** What a variable-expanded server needs: its argv, environment and headers, and the secrets among them. */
export interface Expanded {
  command?: string[];
  url?: string;
  cwd?: string;
  env: Record<string, string>;
  headers: Record<string, string>;
  /** Values never to store or print: every env and header value, and what variables expanded to. */
  secrets: string[];
}

/**
 * A server with its variables expanded from `environment`; an unknown variable, or an input or
 * variable with no value here, is an error naming it (and where it is used).
 */
export function expandServer(config: ClientConfig, server: ConfiguredServer, environment: NodeJS.ProcessEnv): Expanded {
  const secrets: string[] = [];
  const where = `${config.path}: ${server.path.join('.')}`;
  const expand = (text: string, at: string, envName?: string): string =>
    text.replace(/\$\{([^}]*)\}/g, (whole, inner: string) => {
      const [kind, ...rest] = inner.split(':');
      const arg = rest.join(':');
      let value: string | undefined;
      if (kind === 'workspaceFolder' && rest.length === 0) return config.workspace;
      if (kind === 'userHome' && rest.length === 0) return homedir();
      if (kind === 'pathSeparator' && rest.length === 0) return sep;
      if (kind === 'env' && arg !== '') {
        value = environment[arg];
        if (value === undefined) throw new UserError(`${where}.${at} uses \${env:${arg}}, and ${arg} is not set in this environment: set it to start the server (its value is never stored or printed).`);
      } else if (kind === 'input' && arg !== '') {
        const variable = envName ?? arg.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
        value = environment[variable];
        if (value === undefined) {
          throw new UserError(
            `${where}.${at} is \${input:${arg}}, which the client asks its user for: set ${variable} in the environment pin runs in to start the server (its value is never stored or printed).`,
          );
        }
      } else {
        throw new UserError(`${where}.${at} uses ${whole}, a variable pin does not know (it knows \${input:…}, \${env:…}, \${workspaceFolder}, \${userHome}, \${pathSeparator}).`);
      }
      secrets.push(value);
      return value;
    });
  const env = Object.fromEntries(Object.entries(server.env).map(([name, value]) => [name, expand(value, `env.${name}`, name)]));
  const headers = Object.fromEntries(Object.entries(server.headers).map(([name, value]) => [name, expand(value, `headers.${name}`)]));
  secrets.push(...Object.values(env), ...Object.values(headers));
  const out: Expanded = { env, headers, secrets: secrets.filter((s) => s.length >= 4) };
  if (server.command !== undefined) out.command = [expand(server.command, 'command'), ...server.args.map((arg, i) => expand(arg, `args[${i}]`))];
  if (server.url !== undefined) out.url = expand(server.url, 'url');
  if (server.cwd !== undefined) out.cwd = expand(server.cwd, 'cwd');
  return out;
}

/** Hides every secret of `secrets` in `text` (messages, errors, progress). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join('…');
  return out;
}

/** The new entry of a server: replaces the old one's command (or url) and keeps every other key. */
export interface Replacement {
  server: ConfiguredServer;
  command: string;
  args: string[];
}

/**
 * The configuration's text with each server's entry starting `command args` instead (an HTTP
 * entry becomes a stdio one: its `url`, `headers` and `type` go, as the proxy now reaches the
 * server). Every other byte of the file stays as it was.
 */
export function rewriteClientConfig(config: ClientConfig, replacements: readonly Replacement[]): string {
  const formattingOptions = formattingOf(config.text);
  let text = config.text;
  const set = (path: (string | number)[], value: unknown) => {
    text = applyEdits(text, modify(text, path, value, { formattingOptions }));
  };
  for (const { server, command, args } of replacements) {
    if (server.url !== undefined) {
      set([...server.path, 'url'], undefined);
      set([...server.path, 'serverUrl'], undefined);
      set([...server.path, 'headers'], undefined);
      if (server.type !== undefined) set([...server.path, 'type'], 'stdio');
    }
    set([...server.path, 'command'], command);
    set([...server.path, 'args'], args);
  }
  return text;
}

/** The file's own indentation, so the edited entries look like the rest. */
function formattingOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}
