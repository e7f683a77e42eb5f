/**
 * The usage and each command's help, generated from the flag and command tables, so neither
 * can promise a flag the parser refuses or hide one it takes.
 */
import { flagsOf } from './args.js';
import { FLAGS, type FlagName, type FlagSpec } from './flags.js';
import { COMMANDS, type CommandName, type CommandSpec } from './commands.js';

/** The exit-code rule, stated once: the usage, every command's help and docs/cli.md show it. */
export const EXIT_CODES = `Exit codes:
  0  success; for check and diff: no change at or above --fail-on remains, and for
     check the lockfile matches the server (or --lockfile-check is warn or off)
  1  check and diff: a change at or above --fail-on (default BREAKING) remains after
     the config's allow list (never with --fail-on never); check: the lockfile no
     longer matches the server (with --lockfile-check fail, the default)
  2  usage, config, compile or input error (a config run tries every server first)
When the reader of stdout goes away (| head), the output stops quietly; the exit code stays.`;

const NAMES = Object.keys(COMMANDS) as CommandName[];

export function usage(): string {
  const rows: Array<[string, string]> = NAMES.map((name) => [invocation(name), COMMANDS[name].summary]);
  // The proxy parses its own flags (what follows `--` is the server's command line).
  rows.push(['mcp-contract-guard proxy [flags] -- <server command…>', 'self-healing proxy in front of any server (see proxy --help)']);
  rows.push(['mcp-contract-guard <command> --help', 'the flags of one command'], ['mcp-contract-guard --version', FLAGS.version.help]);
  const perCommand: Array<[string, string]> = NAMES.map((name) => [name, ownFlags(name).map((flag) => synopsisOf(flag, name)).join('  ') || '(none)']);
  perCommand.push(['every', generalFlags().map(labelOf).join('  ')]);
  return [
    'mcp-contract-guard: lock, diff and classify the contracts of MCP servers.',
    '',
    'Usage:',
    table(rows),
    '',
    'Flags of each command, beyond its <source>:',
    table(perCommand),
    '',
    sourceSection(),
    '',
    EXIT_CODES,
  ].join('\n');
}

export function commandHelp(name: CommandName): string {
  const spec = COMMANDS[name];
  const flags = [...ownFlags(name), ...generalFlags()].map((flag): [string, string] => [labelOf(flag), helpOf(flag, name)]);
  return [
    `Usage: ${invocation(name)} [flags]`,
    '',
    spec.details,
    ...(spec.source ? ['', sourceSection()] : []),
    '',
    'Flags:',
    table(flags),
    '',
    EXIT_CODES,
  ].join('\n');
}

function invocation(name: CommandName): string {
  return ['mcp-contract-guard', name, COMMANDS[name].operands].filter((part) => part !== '').join(' ');
}

/** The flags a command lists itself (beyond the source flags, for those that read a server). */
export function ownFlags(name: CommandName): FlagName[] {
  return flagsOf(name).filter((flag) => FLAGS[flag].scope !== 'general' && (!COMMANDS[name].source || FLAGS[flag].scope === 'command'));
}

function generalFlags(): FlagName[] {
  return (Object.keys(FLAGS) as FlagName[]).filter((flag) => FLAGS[flag].scope === 'general');
}

function sourceSection(): string {
  const picks = (Object.keys(FLAGS) as FlagName[]).filter((flag) => FLAGS[flag].scope === 'source');
  const options = (Object.keys(FLAGS) as FlagName[]).filter((flag) => FLAGS[flag].scope === 'source-option');
  return [
    'A <source> is one of:',
    table([...picks.map((flag): [string, string] => [labelOf(flag), FLAGS[flag].help]), ['(none)', 'every server of mcp-contract-guard.config.json, or the one --server names']]),
    'and, for the source:',
    table(options.map((flag) => [labelOf(flag), FLAGS[flag].help])),
  ].join('\n');
}

function labelOf(flag: FlagName): string {
  const spec: FlagSpec = FLAGS[flag];
  return `--${flag}${spec.value ? ` ${spec.value}` : ''}${spec.short ? `, -${spec.short}` : ''}`;
}

/** In the usage: `--format text|json`, the values a command really takes. */
function synopsisOf(flag: FlagName, name: CommandName): string {
  const formats: readonly string[] | undefined = COMMANDS[name].formats;
  return flag === 'format' && formats ? `--format ${formats.join('|')}` : labelOf(flag);
}

function helpOf(flag: FlagName, name: CommandName): string {
  const spec: CommandSpec = COMMANDS[name];
  const own = spec.flagHelp?.[flag];
  if (own !== undefined) return own;
  const formats = spec.formats;
  if (flag !== 'format' || !formats) return FLAGS[flag].help;
  const [first, ...rest] = formats;
  return `${first} (default)${rest.length > 1 ? `, ${rest.slice(0, -1).join(', ')}` : ''} or ${rest.at(-1)}`;
}

function table(rows: Array<[string, string]>): string {
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  return rows.map(([label, text]) => `  ${label.padEnd(width)}${text}`).join('\n');
}
