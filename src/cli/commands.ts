import type { FlagName } from './flags.js';

export interface CommandSpec {
  /** What follows the command's name in the usage ('' for none). */
  operands: string;
  /** What it does, in a few words. */
  summary: string;
  /** Its own help's paragraph: what it reads, prints and writes. */
  details: string;
  /** It reads a server, so it takes the source flags (see FLAGS). */
  source: boolean;
  /** Its own flags, beyond the general (and source) ones. */
  flags: readonly FlagName[];
  /** The formats it prints, the default first; it takes `--format` only if it has them. */
  formats?: readonly Format[];
  /** Where a shared flag means something else for this command (another default, say). */
  flagHelp?: Partial<Record<FlagName, string>>;
}

/** Every format a diff report renders to. */
export const FORMATS = ['text', 'json', 'markdown', 'xml', 'sarif'] as const;
export type Format = (typeof FORMATS)[number];

const TABLE = {
  compile: {
    operands: '<source>',
    summary: 'print the contracts a server exposes',
    details: 'Prints the tools, prompts and resources a server exposes (started, reached or read from a file); writes nothing.',
    source: true,
    flags: [],
    formats: ['text', 'json'],
  },
  lock: {
    operands: '<source>',
    summary: 'write them to the lockfile',
    details: 'Compiles a server and writes its canonical lockfile: created, updated or unchanged (an unchanged server changes\nno byte). The file is replaced atomically.',
    source: true,
    flags: ['lockfile'],
  },
  check: {
    operands: '<source>',
    summary: 'compare a server with its lockfile',
    details:
      'Compiles a server and compares it with its lockfile: every change, classified, then the gate at --fail-on.\n' +
      'A lockfile that no longer matches the server fails too (exit 1), whatever the threshold, as the Action\'s\n' +
      'lockfile-check does: it says so with the lock command that updates it (--lockfile-check warn only says it).',
    source: true,
    flags: ['lockfile', 'fail-on', 'lockfile-check', 'artifact', 'released-at', 'release', 'usage', 'unused-days', 'no-color'],
    formats: FORMATS,
  },
  diff: {
    operands: '<OLD> <NEW>',
    summary: 'compare two lockfiles, dumps or compile outputs',
    details:
      'Compares two files, each a lockfile, a tools/list dump or what compile --format json printed: every change,\n' +
      'classified, then the gate at --fail-on.\n' +
      'The allow list of the config file (--config, or ./mcp-contract-guard.config.json if there is one) applies.',
    source: false,
    flags: ['config', 'fail-on', 'artifact', 'released-at', 'release', 'usage', 'unused-days', 'no-color'],
    formats: FORMATS,
  },
  pin: {
    operands: '<client-config>',
    summary: "hold a client's servers to a reviewed pin file",
    details:
      "Reads a client configuration (Claude Desktop's claude_desktop_config.json, VS Code's .vscode/mcp.json, Cursor's\n" +
      '.cursor/mcp.json), resolves the exact package version each npx/uvx line runs, starts each server and writes every\n' +
      "server's contracts to one pin file (--lockfile, default ./mcp-pins.lock.json; --server: only that one, the others kept).\n" +
      'With --rewrite, the configuration then starts each server through "mcp-contract-guard proxy --lockfile", which holds\n' +
      'it to the pin; the file as it was is kept beside it (.bak). Secrets (env and header values, ${input:…}) are never stored\n' +
      'or printed. If any server cannot be pinned, nothing is written.',
    source: false,
    flags: ['lockfile', 'server', 'rewrite', 'on-drift', 'proxy-command'],
    flagHelp: { lockfile: 'the pin file (default ./mcp-pins.lock.json)', server: 'only this server of the client configuration' },
  },
  changelog: {
    operands: '',
    summary: 'the contract changes of each release, from git history',
    details:
      'Reads the lockfile at each release tag on the first-parent history between --from and --to, and at each later\n' +
      'commit that changed it, and prints the contract changes of each release, newest first: grouped Breaking, Changed,\n' +
      'Added, Deprecated, Removed, with the semver bump each calls for and the server version the lockfile records.',
    source: false,
    flags: ['lockfile', 'from', 'to'],
    formats: ['markdown', 'json'],
  },
  usage: {
    operands: 'summarize <FILE…>',
    summary: 'merge usage recordings into one summary',
    details:
      'Merges the usage recordings of many replicas and days (proxy --usage, withSelfHealing\'s usage option) into one\n' +
      'summary: the server, the days it covers, and per tool the calls, argument fields and enum values used. check and\n' +
      'diff read it with --usage: a BREAKING change no call used in the window is RISKY.',
    source: false,
    flags: ['out', 'days', 'server'],
  },
} satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof TABLE;

/**
 * Every command of the CLI: one entry each. The parser and the help read it; the dispatcher
 * (main.ts) loads each command's code, which imports this table's types, so the table names
 * no command module and no command module is loaded with it.
 */
export const COMMANDS: Record<CommandName, CommandSpec> = TABLE;
