/** Lockfiles of the example server, compiled once per test file, and helpers around them. */
import { compileContracts } from '../../src/compile/index.js';
import { renderLockfile } from '../../src/contract/lockfile.js';
import type { Contracts } from '../../src/contract/model.js';
import { diffContracts } from '../../src/diff/index.js';
import type { DiffReport } from '../../src/protocol/index.js';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { GitHubMock } from './github-mock.js';
import { EXAMPLE, removeScratch } from './harness.js';

export interface Inventory {
  v1: Contracts;
  v2: Contracts;
  lockV1: string;
  lockV2: string;
  /** v1 plus one new tool: SAFE changes only. */
  lockSafe: string;
  report: DiffReport;
}

export async function compileInventory(): Promise<Inventory> {
  const source = (v: 'v1' | 'v2') => ({ kind: 'command' as const, command: [process.execPath, EXAMPLE(v)], timeoutMs: 20_000 });
  const [a, b] = await Promise.all([compileContracts(source('v1')), compileContracts(source('v2'))]);
  const safe: Contracts = structuredClone(a.contracts);
  safe.tools.ping = { contract: { name: 'ping', description: 'Check that the server answers.', inputSchema: { type: 'object', properties: {} } } };
  return {
    v1: a.contracts,
    v2: b.contracts,
    lockV1: renderLockfile(a.contracts),
    lockV2: renderLockfile(b.contracts),
    lockSafe: renderLockfile(safe),
    report: await diffContracts(a.contracts, b.contracts),
  };
}

/**
 * The setup every end-to-end file shares: the inventory's lockfiles and the GitHub API stand-in,
 * made once (handed to `ready`), the stand-in reset before each test, and both it and the
 * scratch repositories gone at the end.
 */
export function setUpActionSuite(ready: (inventory: Inventory, mock: GitHubMock) => void): void {
  let mock: GitHubMock | undefined;
  beforeAll(async () => {
    const [inventory, started] = await Promise.all([compileInventory(), new GitHubMock().start()]);
    mock = started;
    ready(inventory, started);
  });
  afterAll(async () => {
    await mock?.stop();
    removeScratch();
  });
  beforeEach(() => mock?.reset());
}
