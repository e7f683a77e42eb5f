/**
 * No server outlives us: not when a capture ends, not when the CLI or the Action is cancelled,
 * not even a descendant that started a session of its own (setsid) and ignores SIGTERM.
 */
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startAction } from '../action/harness.js';
import { fixture, processesLeft, processesMentioning } from '../helpers/processes.js';
import { startCli } from '../helpers/cli.js';
import { connect, proxyArgs } from '../proxy/helpers.js';
import { actionPushes, fileText, waitFor } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'mcg-life-'));
let runs = 0;
/** A pid file of its own per test: its path also tags the server's command line. */
const pidFile = () => join(dir, `daemon-${++runs}.pid`);
const escapes = (file: string, then = '') => `node ${fixture('escapes-session.mjs')} ${file}${then}`;

/** No process whose command line names `file` (the daemon carries it) is left. */
async function expectNoSurvivor(file: string): Promise<void> {
  expect(await processesLeft(file)).toEqual([]);
}

describe('the CLI', () => {
  it('a failed capture stops the server and the daemon it started in its own session', async () => {
    const file = pidFile();
    // The server fails once its daemon is up, however long that takes on a busy machine.
    const run = startCli(['compile', '--command', escapes(file, ' --then-refuse'), '--no-heal']);
    const result = await run.done;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the database is gone');
    expect(fileText(file)).toBeDefined();
    await expectNoSurvivor(file);
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s during start-up: exits %i and leaves no survivor', async (signal, code) => {
    const file = pidFile();
    const run = startCli(['compile', '--command', escapes(file), '--timeout', '30']);
    await waitFor('the daemon pid', () => fileText(file));
    run.child.kill(signal);
    const result = await run.done;
    expect(result.code).toBe(code);
    await expectNoSurvivor(file);
  });
});

/**
 * A daemon that leaves the process group and the session, and clears its environment (so it
 * carries no marker variable): only a PID namespace or a subreaper holds it. Each run names the
 * containment in force; each leaves nothing behind.
 */
describe('a daemon with its own session and a cleared environment', () => {
  const attacker = (file: string) => `node ${fixture('pr-attacks.mjs')} daemon=${file}`;
  /** A folder any user may write the pid file to. */
  const open = () => {
    const folder = mkdtempSync(join(tmpdir(), 'mcg-anyone-'));
    chmodSync(folder, 0o777);
    return folder;
  };
  const compile = async (file: string, env: Record<string, string>, through: string[] = []) => {
    const result = await startCli(['compile', '--command', attacker(file)], { HOME: dirname(file), ...env }, through).done;
    expect(result.code, result.stderr).toBe(0);
    return result;
  };

  it.each([
    ['pid-namespace', 'in a PID namespace of its own'],
    ['subreaper', 'under a subreaper supervisor'],
  ])('the CLI, contained at most by %s: nothing survives the capture', async (level, said) => {
    const file = join(open(), 'daemon.pid');
    const result = await compile(file, { MCP_CONTRACT_GUARD_CONTAINMENT: level });
    expect(result.stderr).toContain(said);
    await expectNoSurvivor(file);
  });

  it('lock, as the finding reported it: nothing survives, and the lockfile is written', async () => {
    const folder = open();
    const file = join(folder, 'daemon.pid');
    const result = await startCli(['lock', '--command', attacker(file), '--lockfile', join(folder, 'mcp-contracts.lock.json')], { HOME: folder }).done;
    expect(result.code, result.stderr).toBe(0);
    expect(fileText(join(folder, 'mcp-contracts.lock.json'))).toContain('"lockfileVersion"');
    await expectNoSurvivor(file);
  });

  it.runIf(process.getuid?.() === 0)('an unprivileged user (nobody): a PID namespace inside a user namespace of its own', async () => {
    const file = join(open(), 'daemon.pid');
    const result = await compile(file, {}, ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']);
    expect(result.stderr).toContain('in a PID namespace of its own');
    await expectNoSurvivor(file);
  });

  it.runIf(process.getuid?.() === 0)('no namespace allowed (no capabilities, user namespaces off, as in a default container): the subreaper, found by itself', async () => {
    const file = join(open(), 'daemon.pid');
    // A user namespace of its own, where user namespaces are then switched off, and every capability dropped.
    const confined = ['unshare', '--user', '--map-root-user', 'sh', '-c', 'echo 0 > /proc/sys/user/max_user_namespaces && exec setpriv --inh-caps=-all --bounding-set=-all "$@"', 'confined'];
    const result = await compile(file, {}, confined);
    expect(result.stderr).toContain('under a subreaper supervisor');
    await expectNoSurvivor(file);
  });

  it('with a process group only, the log says the daemon cannot be found', async () => {
    const file = join(open(), 'daemon.pid');
    const result = await compile(file, { MCP_CONTRACT_GUARD_CONTAINMENT: 'process-group' });
    expect(result.stderr).toContain('in a process group only: a descendant that starts its own session and clears its environment cannot be found');
    // It did escape: the limit the message names. The test cleans up after it.
    for (const line of await processesMentioning(file)) process.kill(Number(line.split(' ')[0]), 'SIGKILL');
  });

  it('the proxy: nothing survives the session', async () => {
    const file = join(open(), 'daemon.pid');
    const { close } = await connect(process.execPath, proxyArgs([], ['node', fixture('pr-attacks.mjs'), `daemon=${file}`]));
    await waitFor('the daemon pid', () => fileText(file));
    await close();
    await expectNoSurvivor(file);
  });
});

describe('the Action', () => {
  const push = actionPushes();

  it('SIGTERM during start-up (a cancelled job): exits 143 and leaves no survivor', async () => {
    const file = pidFile();
    const { child, done } = startAction({
      ...push(),
      inputs: { command: escapes(file), timeout: '30', comment: 'never' },
    });
    await waitFor('the daemon pid', () => fileText(file));
    child.kill('SIGTERM');
    const result = await done;
    expect(result.code).toBe(143);
    await expectNoSurvivor(file);
  });
});
