/**
 * Entry point of the GitHub Action (bundled into dist/index.js by `npm run build:action`).
 * Thin on purpose: everything lives in src/github, where the decisions are pure and tested.
 */
import { runAction } from './github/run.js';

await runAction();
