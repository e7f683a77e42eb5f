/**
 * This package's version. Written from package.json by `scripts/version.mjs --write` (npm's
 * `version` hook runs it), and checked against it by a test and by the release workflow: a
 * constant, so the Action's bundle carries the version it was built from and the commands it
 * prints (`npx mcp-contract-guard@VERSION …`) run the same engine on a laptop.
 */
export const VERSION = '1.0.0';
