/**
 * Ctrl-C and SIGTERM (a cancelled CI job) exit with the conventional codes (130, 143). Exiting
 * runs the 'exit' hook of process.ts, which kills the tree of every server still running, so a
 * cancelled run leaves no server behind. A module of its own, with no imports: the CLI installs
 * it before anything else, `--help` included, without loading the server code.
 */
export function exitOnInterrupt(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // A command that listens for the signal itself (the proxy stops its servers gracefully) is left to it.
    process.once(signal, () => process.listenerCount(signal) === 0 && process.exit(signal === 'SIGINT' ? 130 : 143));
  }
}
