/**
 * The CLI as a process (lib/cli.js imports it once the compile cache is on and runs it): its
 * streams, the interrupt handling and the exit code around `main`. Nothing happens on import,
 * and nothing here waits at the top level: the bundle puts this module in the chunk every
 * command's code imports from (scripts/build-package.mjs), and a chunk that awaited the command
 * it imports would never finish loading.
 */
import { exitOnInterrupt } from '../compile/interrupt.js';
import type { Io } from './context.js';

/**
 * A stream's writer that survives its reader going away: after EPIPE (`… | head -1`) further
 * output is dropped and the command finishes its work (a lockfile is still written) and exits
 * with its own code. Any other write error (a full disk under `> out.json`) would lose output
 * silently, so it is reported and the exit code becomes 2. The stream is taken on the first
 * write: creating it is work the proxy's server need not wait for.
 */
function writerOf(name: 'stdout' | 'stderr'): (text: string) => void {
  let open = true;
  let stream: NodeJS.WriteStream | undefined;
  const opened = (): NodeJS.WriteStream => {
    stream = process[name];
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (!open) return;
      open = false;
      if (error.code === 'EPIPE') return;
      process.exitCode = 2;
      if (name !== 'stderr') process.stderr.write(`error: could not write the output: ${error.message}\n`);
    });
    return stream;
  };
  return (text) => {
    if (open) (stream ?? opened()).write(text);
  };
}

/** Runs the command `process.argv` names and sets the process's exit code. */
export async function runCli(): Promise<void> {
  // Ctrl-C / SIGTERM: exit 130 / 143, and kill every server tree still running on the way out.
  exitOnInterrupt();
  const argv = process.argv.slice(2);
  const io: Io = {
    cwd: process.cwd(),
    stdout: writerOf('stdout'),
    stderr: writerOf('stderr'),
    get isTty() {
      return process.stdout.isTTY === true;
    },
  };
  // The proxy stands between a client and the server it waits for: it goes to its own code at
  // once (as `main` would send it), without parsing the CLI's flags or loading a command first,
  // so the server starts sooner. (In the bundle, main.ts is in the file this one is in.)
  const code = argv[0] === 'proxy' ? await (await import('../proxy/index.js')).proxyCommand(argv.slice(1), io) : await (await import('./main.js')).main(argv, io);
  // A failed write (reported above) keeps its 2.
  if (process.exitCode !== 2) process.exitCode = code;
}
