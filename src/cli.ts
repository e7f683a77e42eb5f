#!/usr/bin/env node
import { main } from './cli/main.js';

// Stop cleanly on Ctrl-C / SIGTERM: exiting runs the 'exit' hook that stops server processes.
// A command that listens for the signal itself (the proxy stops its servers gracefully) is left to it.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => process.listenerCount(signal) === 0 && process.exit(signal === 'SIGINT' ? 130 : 143));
}

const code = await main(process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTty: process.stdout.isTTY === true,
});
process.exitCode = code;
