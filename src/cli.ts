#!/usr/bin/env node
import { main } from './cli/main.js';
import { exitOnInterrupt } from './compile/process.js';

// Ctrl-C / SIGTERM: exit 130 / 143, and kill every server tree still running on the way out.
exitOnInterrupt();

const code = await main(process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTty: process.stdout.isTTY === true,
});
process.exitCode = code;
