/**
 * The CLI as a process (the bin, src/cli.ts, requires it once the compile cache is on and runs it): its
 * streams, the interrupt handling and the exit code around `main`. Nothing happens on import,
 * and nothing here waits at the top level: the bundle puts this module in the chunk every
 * command's code imports from (scripts/build-package.mjs), and a chunk that awaited the command
 * it imports would never finish loading.
 */
import { fstatSync, writeSync } from 'node:fs';
import { exitOnInterrupt } from '../compile/interrupt.js';
import type { Io } from './context.js';

/**
 * Whether fd 1 or 2 is a character device: a terminal is one (so is /dev/null). Output that goes
 * anywhere else (a pipe, a socket, a file) is written with `writeSync`, without creating
 * process.stdout: that costs some 3 ms of a short command (the stream stack, and node:net for a
 * pipe), a third of what `--help` adds to Node's own start, and tells nothing a synchronous
 * write does not. An fd that cannot be looked at gets the stream, as before.
 */
function isCharacterDevice(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return true;
  }
}

/**
 * A writer for fd 1 or 2 that survives its reader going away: after EPIPE (`… | head -1`)
 * further output is dropped and the command finishes its work (a lockfile is still written) and
 * exits with its own code. Any other write error (a full disk under `> out.json`) would lose
 * output silently, so it is reported and the exit code becomes 2. A terminal gets the process's
 * stream, taken on the first write (creating it is work the proxy's server need not wait for);
 * a pipe, a socket or a file is written synchronously, until a write would block (a pipe left
 * non-blocking by another process, and full): from there on the stream, which waits for the
 * reader, takes the rest in order.
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
  const stdoutIsDevice = isCharacterDevice(1);
  const io: Io = {
    cwd: process.cwd(),
    stdout: writerOf('stdout', !proxy && !stdoutIsDevice),
    stderr: writerOf('stderr', !proxy && !isCharacterDevice(2)),
    // Only a character device can be a terminal: anything else is known not to be one without
    // creating the stream.
    get isTty() {
      return stdoutIsDevice && process.stdout.isTTY === true;
    },
  };
  // The proxy stands between a client and the server it waits for: it goes to its own code at
  // once (as `main` would send it), without parsing the CLI's flags or loading a command first,
  // so the server starts sooner. (In the bundle, main.ts is in the file this one is in.)
  const code = proxy ? await (await import('../proxy/index.js')).proxyCommand(argv.slice(1), io) : await (await import('./main.js')).main(argv, io);
  // A failed write (reported above) keeps its 2.
  if (process.exitCode !== 2) process.exitCode = code;
}
