/**
 * This package's version. Written from package.json by `scripts/version.mjs --write` (npm's
 * `version` hook runs it), and checked against it by a test and by the release workflow: a
 * constant, so the Action's bundle carries the version it was built from and the commands it
 * prints (`npx mcp-contract-guard@VERSION …`) run the same engine on a laptop.
 */
export const VERSION = '1.0.0';

/** This package at this exact version, as npm names it. */
export const PACKAGE_AT_VERSION = `mcp-contract-guard@${VERSION}`;

/**
 * How every message that tells the user a command to run starts it: `npx` at this exact version.
 * It runs wherever the line is pasted: in a project that has this version as a dependency npx
 * takes that copy, anywhere else it fetches (once) or reuses its cached one; the bare name is
 * found only where a global install put it on PATH. And it runs this very engine, so a lockfile
 * the advice writes is one this version's `check` accepts, which a bare name on PATH (whatever
 * version was installed there) does not promise. `--help` synopses name the program instead.
 */
export const CLI_COMMAND = `npx ${PACKAGE_AT_VERSION}`;
