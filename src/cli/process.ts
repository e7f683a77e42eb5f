/**
 * The CLI as a process (the bin, src/cli.ts, requires it once the compile cache is on and runs it): its
 * streams, the interrupt handling and the exit code around `main`. Nothing happens on import,
 * and nothing here waits at the top level: the bundle puts this module in the chunk every
 * command's code imports from (scripts/build-package.mjs), and a chunk that awaited the command
 * it imports would never finish loading.
 */
import { fstatSync, statSync, writeSync } from 'node:fs';
import { exitOnInterrupt } from '../compile/interrupt.js';
import type { Io } from './context.js';

/**
 * Whether fd 1 or 2 is a character device: a terminal is one (so is /dev/null), a pipe, a
 * socket or a file is not, and so is known not to be a terminal without creating
 * process.stdout. An fd that cannot be looked at may be one.
 */
function isCharacterDevice(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return true;
  }
}

/**
 * Whether fd 1 may be a terminal, known without creating process.stdout where it can be: a
 * character device other than the null device (`> /dev/null`, where a benchmark or a script
 * sends what it does not read). Asking the stream instead would build it, and the stream stack
 * with it, for output nobody sees. Windows' NUL is left to the stream.
 */
function mayBeTerminal(fd: number): boolean {
  return isCharacterDevice(fd) && (process.platform === 'win32' || !isNullDevice(fd));
}

/** Whether fd 1 or 2 is /dev/null, by its device number; false when either cannot be looked at. */
function isNullDevice(fd: number): boolean {
  try {
    return fstatSync(fd).rdev === statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}

/**
 * Whether output to fd 1 or 2 is written with `writeSync` rather than through process.stdout or
 * process.stderr: creating that stream costs some 3 ms of a short command (the stream stack, and
 * node:net for a pipe), a third of what `--help` adds to Node's own start, and the CLI's output
 * all goes through these writers, so nothing else writes to the fd in between. Windows' console
 * is the exception: the stream writes it as text (WriteConsoleW), where bytes would be read in
 * the console's code page.
 */
function writesDirectly(fd: number): boolean {
  return process.platform !== 'win32' || !isCharacterDevice(fd);
}

/**
 * A writer for fd 1 or 2 that survives its reader going away: after EPIPE (`… | head -1`)
 * further output is dropped and the command finishes its work (a lockfile is still written) and
 * exits with its own code. Any other write error (a full disk under `> out.json`) would lose
 * output silently, so it is reported and the exit code becomes 2. Output is written
 * synchronously (`writesDirectly`) until a write would block (a pipe or a terminal left
 * non-blocking by another process, and full): from there on the stream, which waits for the
 * reader, takes the rest in order. Otherwise it is the process's stream, taken on the first
 * write (creating it is work the proxy's server need not wait for).
 */
function writerOf(name: 'stdout' | 'stderr', direct: boolean): (text: string) => void {
  const fd = name === 'stdout' ? 1 : 2;
  let open = true;
  let stream: NodeJS.WriteStream | undefined;
  const failed = (error: NodeJS.ErrnoException) => {
    if (!open) return;
    open = false;
    if (error.code === 'EPIPE') return;
    process.exitCode = 2;
    if (name !== 'stderr') process.stderr.write(`error: could not write the output: ${error.message}\n`);
  };
  const opened = (): NodeJS.WriteStream => {
    stream = process[name];
    stream.on('error', failed);
    return stream;
  };
  return (text) => {
    if (!open) return;
    if (stream !== undefined || !direct) {
      (stream ?? opened()).write(text);
      return;
    }
    const bytes = Buffer.from(text);
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(fd, bytes, written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return failed(error as NodeJS.ErrnoException);
      opened().write(bytes.subarray(written));
    }
  };
}

/** Runs the command `process.argv` names and sets the process's exit code. */
export async function runCli(): Promise<void> {
  // Ctrl-C / SIGTERM: exit 130 / 143, and kill every server tree still running on the way out.
  exitOnInterrupt();
  const argv = process.argv.slice(2);
  // The proxy's session writes through process.stdout and process.stderr: its own messages go
  // the same way, behind what those streams may still hold.
  const proxy = argv[0] === 'proxy';
  const io: Io = {
    cwd: process.cwd(),
    stdout: writerOf('stdout', !proxy && writesDirectly(1)),
    stderr: writerOf('stderr', !proxy && writesDirectly(2)),
    // Asked only when a command colors its output (args.ts).
    get isTty() {
      return mayBeTerminal(1) && process.stdout.isTTY === true;
    },
  };
  // The proxy stands between a client and the server it waits for: it goes to its own code at
  // once (as `main` would send it), without parsing the CLI's flags or loading a command first,
  // so the server starts sooner. (In the bundle, main.ts is in the file this one is in.)
  const code = proxy ? await (await import('../proxy/index.js')).proxyCommand(argv.slice(1), io) : await (await import('./main.js')).main(argv, io);
  // A failed write (reported above) keeps its 2.
  if (process.exitCode !== 2) process.exitCode = code;
}
