/**
 * The GitHub Action: run.ts reads the run and hands it to a mode (review, comment-only,
 * capture, watch). The orchestration stands here; what it reads and writes is io/, what it
 * shows people render/, the approval label approval/; every decision is the library's
 * (src/policy).
 */
export { runAction } from './run.js';
