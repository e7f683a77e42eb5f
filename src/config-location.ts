import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Where the config file is, apart from config.ts: finding it must not cost loading the schema
 * library, which a run without a config never needs.
 */

/** The config file name looked for in the working directory (fixed: users commit it). */
export const CONFIG_NAME = 'mcp-contract-guard.config.json';

/** The config in `dir`, if there is one. */
export function findConfig(dir: string): string | undefined {
  const path = resolve(dir, CONFIG_NAME);
  return existsSync(path) ? path : undefined;
}
