/**
 * Entry point of the GitHub Action (bundled into dist/index.js by `npm run build:action`).
 * Thin on purpose: everything lives in src/github, where the decisions are pure and tested.
 */
import { exitOnInterrupt } from './compile/index.js';
import { runAction } from './github/index.js';

// A cancelled job (the runner sends SIGINT, then SIGTERM) must not leave the PR's server running.
exitOnInterrupt();
await runAction();
