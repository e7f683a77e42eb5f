/**
 * Every flag either works on a command or is refused there (exit 2, naming both), and what the
 * usage, each command's help and docs/cli.md promise is exactly what the parser takes.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { flagsOf, parseCli } from '../../src/cli/args.js';
import { FLAGS, type FlagName } from '../../src/cli/flags.js';
import { COMMANDS, type CommandName } from '../../src/cli/commands.js';
import { PIN_FILE_NAME } from '../../src/contract/pins.js';
import { EXIT_CODES, commandHelp, ownFlags, usage } from '../../src/cli/help.js';
import { DEFAULT_TIMEOUT_MS } from '../../src/compile/source.js';
import { LOCKFILE_NAME } from '../../src/contract/lockfile.js';
import { UserError } from '../../src/errors.js';
import { cli } from '../helpers/cli.js';
import { ROOT } from '../helpers/processes.js';
import { CLI_COMMAND } from '../../src/version.js';

const NAMES = Object.keys(COMMANDS) as CommandName[];
const ALL_FLAGS = Object.keys(FLAGS) as FlagName[];

/** A command line giving `flag` a plausible value. */
function withFlag(command: CommandName, flag: FlagName): string[] {
  const spec: { type: string } = FLAGS[flag];
  const VALUES: Partial<Record<FlagName, string>> = { format: 'json', 'fail-on': 'RISKY', 'released-at': '2025-06-01', 'lockfile-check': 'warn' };
  return spec.type === 'boolean' ? [command, `--${flag}`] : [command, `--${flag}`, VALUES[flag] ?? 'x'];
}

/** The long flags a help text lists at the start of its lines. */
function listedFlags(help: string): string[] {
  return [...help.matchAll(/^ {2}--([a-z-]+)/gm)].map((m) => m[1]!).sort();
}

describe('flags per command', () => {
  it.each([
    ['lock', '--fail-on', 'RISKY'],
    ['compile', '--artifact', 'deltas.json'],
    ['diff', '--command', 'node server.js'],
    ['lock', '--format', 'json'],
    ['compile', '--no-color'],
    ['diff', '--lockfile', 'x.json'],
    ['diff', '--server', 'orders'],
  ] as Array<[string, string, string?]>)('%s %s is refused: exit 2, naming the flag and the command', async (command, flag, value) => {
    const result = await cli([command, ...(value === undefined ? [flag] : [flag, value]), '--file', 'nothing.json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: ${command} does not take ${flag}. Run "${CLI_COMMAND} ${command} --help" for the flags it takes.\n`);
    expect(result.stdout).toBe('');
  });

  it('a short flag is named as typed; --format and --fail-on values are checked per command', async () => {
    const sarif = await cli(['compile', '--format', 'sarif', '--file', 'x.json']);
    expect(sarif.code).toBe(2);
    expect(sarif.stderr).toContain('compile --format must be one of text, json; got "sarif".');
    const failOn = await cli(['diff', 'a.json', 'b.json', '--fail-on', 'sometimes']);
    expect(failOn.code).toBe(2);
    expect(failOn.stderr).toContain('--fail-on must be one of BREAKING, RISKY, SAFE, COSMETIC, never; got "sometimes".');
  });

  it('flags that would be silently ignored with the source given are refused', async () => {
    const timeout = await cli(['check', '--file', 'tools.json', '--timeout', '5']);
    expect(timeout.stderr).toContain('--timeout only applies to --command or --url');
    const noHeal = await cli(['compile', 'tools.json', '--no-heal']);
    expect(noHeal.stderr).toContain('--no-heal only applies to a server');
    const config = await cli(['lock', '--file', 'tools.json', '--config', 'other.json']);
    expect(config.stderr).toContain('--config names the config file whose servers to lock; with --command, --url or --file it has nothing to do.');
    for (const result of [timeout, noHeal, config]) expect(result.code).toBe(2);
  });

  it('the parser takes exactly the flags each command lists in its help, and refuses every other one', () => {
    for (const command of NAMES) {
      const takes = flagsOf(command);
      expect(listedFlags(commandHelp(command))).toEqual([...takes].sort());
      for (const flag of ALL_FLAGS) {
        const parse = () => parseCli(withFlag(command, flag), () => false);
        if (takes.includes(flag)) expect(parse, `${command} --${flag}`).not.toThrow();
        else expect(parse, `${command} --${flag}`).toThrow(new UserError(`${command} does not take --${flag}. Run "${CLI_COMMAND} ${command} --help" for the flags it takes.`));
      }
    }
  });

  it('the defaults the help states are the real ones', () => {
    expect(FLAGS.lockfile.help).toContain(`./${LOCKFILE_NAME})`);
    expect(FLAGS.timeout.help).toContain(`(default ${DEFAULT_TIMEOUT_MS / 1000})`);
    // pin writes a pin file, not the server's own lockfile: its help says so.
    expect(commandHelp('pin')).toMatch(new RegExp(`--lockfile PATH +the pin file \\(default \\./${PIN_FILE_NAME.replaceAll('.', '\\.')}\\)`));
  });

  it('the usage lists each command with its own flags, and the formats it really prints', () => {
    const text = usage();
    for (const command of NAMES) {
      expect(text).toContain(`mcp-contract-guard ${command} ${COMMANDS[command].operands}`);
      const line = text.split('\n').find((l) => l.startsWith(`  ${command} `))!;
      expect([...line.matchAll(/--([a-z-]+)/g)].map((m) => m[1]).sort()).toEqual(ownFlags(command).sort());
      const formats = COMMANDS[command].formats;
      if (formats) expect(line).toContain(`--format ${formats.join('|')}`);
    }
    // Every source flag is explained once, in the <source> section.
    const sources = ALL_FLAGS.filter((flag) => FLAGS[flag].scope === 'source' || FLAGS[flag].scope === 'source-option');
    const section = text.slice(text.indexOf('A <source> is one of:'), text.indexOf('Exit codes:'));
    expect(listedFlags(section)).toEqual(sources.sort());
  });
});

describe('--help and --version', () => {
  it('--help prints the usage on stdout (exit 0); no command prints it on stderr (exit 2)', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(`${usage()}\n`);
    expect(help.stderr).toBe('');
    const none = await cli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`${usage()}\n`);
  });

  it('<command> --help prints that command only, even beside flags it would refuse', async () => {
    for (const command of NAMES) {
      const result = await cli([command, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`${commandHelp(command)}\n`);
      expect(result.stdout.startsWith(`Usage: mcp-contract-guard ${command} `)).toBe(true);
      for (const other of NAMES.filter((n) => n !== command)) expect(result.stdout).not.toContain(`mcp-contract-guard ${other}`);
    }
    expect((await cli(['lock', '--fail-on', 'RISKY', '-h'])).stdout).toBe(`${commandHelp('lock')}\n`);
  });

  it('--version prints the package version, from the repository and from an installed package', async () => {
    const { version, bin: bins } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };
    expect(await cli(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });

    // The published tarball, unpacked without its dependencies and run through a bin link as
    // npm installs it: --version and --help need nothing but the package itself.
    const scratch = mkdtempSync(join(tmpdir(), 'mcg-pack-'));
    // Asynchronously: npm takes seconds on a busy machine, and the test worker must not stall meanwhile.
    const packed = await promisify(execFile)('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', scratch], { cwd: ROOT, encoding: 'utf8' });
    const tarball = packed.stdout.trim().split('\n').at(-1)!;
    const installed = join(scratch, 'node_modules', 'mcp-contract-guard');
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', join(scratch, tarball), '-C', installed, '--strip-components=1']);
    mkdirSync(join(scratch, 'node_modules', '.bin'));
    const bin = join(scratch, 'node_modules', '.bin', 'mcp-contract-guard');
    symlinkSync(`../mcp-contract-guard/${bins['mcp-contract-guard']}`, bin);
    expect(execFileSync(process.execPath, [bin, '--version'], { cwd: scratch, encoding: 'utf8' })).toBe(`${version}\n`);
    expect(execFileSync(process.execPath, [bin, 'check', '--help'], { cwd: scratch, encoding: 'utf8' })).toBe(`${commandHelp('check')}\n`);
  });
});

describe('docs/cli.md', () => {
  const page = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');

  it('shows the usage, the flags of each command and the exit codes exactly as --help prints them', () => {
    const paragraphs = usage().split('\n\n');
    for (const heading of ['Usage:', 'Flags of each command']) {
      const paragraph = paragraphs.find((p) => p.startsWith(heading))!;
      expect(page).toContain(paragraph);
    }
    expect(page).toContain(EXIT_CODES);
  });
});
