/**
 * Where a server we start runs, so that stopping it stops everything it started. A process
 * group is not enough: a descendant can start a session of its own (setsid), and one that also
 * clears its environment sheds the marker variable process.ts looks for. What it cannot shed,
 * strongest first, as this machine allows:
 *
 * - `pid-namespace`: the server starts as the child of PID 1 of a PID namespace of its own
 *   (`unshare --pid --fork --kill-child`, with `--user --map-current-user` when we are not
 *   root, and `--mount-proc` where it may mount: then it does not even see our processes, nor
 *   read their environment). When that init exits, the kernel kills every process left inside.
 *   GitHub's ubuntu-24.04 runners refuse unprivileged user namespaces (AppArmor), so this is
 *   what a developer's machine or a root container gets.
 * - `subreaper`: the server starts as the child of a small supervisor (python3) that made
 *   itself the child subreaper of its tree (PR_SET_CHILD_SUBREAPER): a descendant whose parent
 *   exits is re-parented to it, never to init, so it finds them all and kills them.
 * - `process-group`: neither is available (not Linux, no python3): the server's process group
 *   and the marker variable, which a descendant that leaves both escapes. Said in the log.
 *
 * `MCP_CONTRACT_GUARD_CONTAINMENT` caps the level tried (`subreaper`, `process-group`), for a
 * server that cannot start in a namespace (one that needs sudo, say). The proxy starts the
 * server its user chose, not code under review: it gets the subreaper at most, which changes
 * nothing the server can see (same PID namespace, same /proc, same user).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

export type Containment = 'pid-namespace' | 'subreaper' | 'process-group';

export const CONTAINMENTS: readonly Containment[] = ['pid-namespace', 'subreaper', 'process-group'];

/** For people: what stops the server's whole tree. */
export const CONTAINMENT_DESCRIPTION: Record<Containment, string> = {
  'pid-namespace': 'in a PID namespace of its own',
  subreaper: 'under a subreaper supervisor',
  'process-group': 'in a process group only: a descendant that starts its own session and clears its environment cannot be found',
};

/** How servers start on this machine, decided once per process. */
export interface ContainmentPlan {
  containment: Containment;
  /** The argv that starts `command` contained: the supervisor (and unshare) before it. */
  wrap(command: readonly string[], graceMs: number): string[];
}

/** System tools are taken from the system's directories first: PATH may have been written by code under review. */
const SYSTEM_DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin'];

const plans = new Map<Containment, ContainmentPlan>();

/** The strongest containment this machine allows, `strongest` at most (probed once per level). */
export function containmentPlan(strongest: Containment = 'pid-namespace'): ContainmentPlan {
  let plan = plans.get(strongest);
  if (plan === undefined) {
    plan = probe(strongest);
    plans.set(strongest, plan);
  }
  return plan;
}

function probe(strongest: Containment): ContainmentPlan {
  const caps = [strongest, process.env.MCP_CONTRACT_GUARD_CONTAINMENT as Containment].map((level) => CONTAINMENTS.indexOf(level));
  const allowed = (level: Containment) => caps.every((cap) => cap < 0 || CONTAINMENTS.indexOf(level) >= cap);
  const python = process.platform === 'linux' ? systemProgram('python3') : undefined;
  if (python === undefined || !allowed('subreaper')) return { containment: 'process-group', wrap: (command) => [...command] };
  const supervised = (command: readonly string[], graceMs: number) => [python, '-I', '-S', '-c', SUPERVISOR, String(graceMs / 1000), '--', ...command];
  const unshare = systemProgram('unshare');
  if (unshare !== undefined && allowed('pid-namespace')) {
    // Root may make a PID namespace outright; anyone, inside a user namespace of their own where allowed.
    const users = process.getuid?.() === 0 ? [[], ['--user', '--map-current-user']] : [['--user', '--map-current-user']];
    for (const flags of users.flatMap((user) => [['--mount-proc'], []].map((proc) => [...user, '--pid', '--fork', '--kill-child', ...proc]))) {
      // It must start a process there, and that process must be PID 1 of its namespace.
      const tried = spawnSync(unshare, [...flags, python, '-I', '-S', '-c', 'import os; print(os.getpid())'], { encoding: 'utf8', timeout: 5_000, stdio: ['ignore', 'pipe', 'ignore'] });
      if (tried.status === 0 && tried.stdout.trim() === '1') {
        return { containment: 'pid-namespace', wrap: (command, graceMs) => [unshare, ...flags, '--', ...supervised(command, graceMs)] };
      }
    }
  }
  return { containment: 'subreaper', wrap: supervised };
}

/** `name` in the system's directories, else on PATH; undefined when it is nowhere executable. */
function systemProgram(name: string): string | undefined {
  return resolveProgram(name, [...SYSTEM_DIRS, ...(process.env.PATH ?? '').split(delimiter)].join(delimiter), process.cwd());
}

/**
 * Where `program` is, as exec would find it: a path with a slash is taken from `cwd`, a bare
 * name is looked up on `path`. Undefined when there is no executable file there: the server is
 * then spawned as it is, so the error (ENOENT, EACCES) is the one a diagnosis reads.
 */
export function resolveProgram(program: string, path: string | undefined, cwd: string): string | undefined {
  const candidates = program.includes('/') ? [isAbsolute(program) ? program : resolve(cwd, program)] : (path ?? '').split(delimiter).filter((dir) => dir !== '').map((dir) => join(resolve(cwd, dir), program));
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not there, or not executable: the next one.
    }
  }
  return undefined;
}

/**
 * The supervisor (python3 -I -S -c SUPERVISOR GRACE_SECONDS -- COMMAND…). It starts COMMAND as
 * its child and becomes the subreaper of its tree (or is PID 1 of a namespace, which is one),
 * then waits. When the server exits, or on SIGTERM (SIGINT, SIGHUP), it sends SIGTERM to
 * every descendant, gives the server GRACE_SECONDS, then SIGKILLs every descendant round after
 * round until none is left; SIGUSR1 skips the grace (our process is exiting). It exits as the
 * server did (the same code, or the same signal). On file descriptor 3, when there is one, it
 * names each process it could not kill ("survivor PID COMMAND"): the caller reports them.
 *
 * It stands between the client and the server's first answer (the proxy starts one on every
 * launch), so it imports only modules built into the interpreter: `_signal` rather than
 * `signal` (which builds enums on import) and `_ctypes` rather than `ctypes` (which defines its
 * whole type system): the server starts some 6 ms sooner; prctl is called through
 * `_ctypes` as `ctypes.CDLL(None).prctl` would call it.
 */
export const SUPERVISOR = String.raw`
import _ctypes, _signal as signal, os, sys, time
grace, command = float(sys.argv[1]), sys.argv[3:]
try:
    os.set_inheritable(3, False)
    report = os.fdopen(3, 'w', buffering=1)
except OSError:
    report = None
def say(line):
    try:
        report and report.write(line + '\n')
    except OSError:
        pass
init = os.getpid() == 1
if not init:
    class Int(_ctypes._SimpleCData):
        _type_ = 'i'
    class Function(_ctypes.CFuncPtr):
        _flags_ = _ctypes.FUNCFLAG_CDECL
        _restype_ = Int
    Function(_ctypes.dlsym(_ctypes.dlopen(None), 'prctl'))(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
class Stop(Exception):
    pass
urgent = False
def on_signal(number, frame):
    global urgent
    urgent = urgent or number == signal.SIGUSR1
    raise Stop()
for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1):
    signal.signal(number, on_signal)
server = os.fork()
if server == 0:
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1):
        signal.signal(number, signal.SIG_DFL)
    try:
        os.execvp(command[0], command)
    except OSError as error:
        sys.stderr.write('%s: %s\n' % (command[0], error.strerror))
        os._exit(127)
# Our copies of the server's stdin and stdout would keep its pipes open after it is gone.
quiet = os.open(os.devnull, os.O_RDWR)
os.dup2(quiet, 0)
os.dup2(quiet, 1)
def descendants():
    children = {}
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                with open('/proc/%s/stat' % entry, 'rb') as stat:
                    fields = stat.read().rsplit(b')', 1)[1].split()
                if fields[0] != b'Z':
                    children.setdefault(int(fields[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    found, todo = [], [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found
def signal_all(number):
    if init:
        try:
            os.kill(-1, number)
        except OSError:
            pass
        return
    for pid in descendants():
        try:
            os.kill(pid, number)
        except OSError:
            pass
status = None
def reap(block):
    global status
    while True:
        try:
            pid, code = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True
        if pid == server:
            status = code
        if block:
            return True
try:
    while status is None:
        reap(True)
except Stop:
    pass
for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1):
    signal.signal(number, signal.SIG_IGN)
signal_all(signal.SIGTERM)
deadline = time.monotonic() + (0 if urgent else grace)
while status is None and time.monotonic() < deadline and reap(False):
    time.sleep(0.01)
deadline = time.monotonic() + 5
while time.monotonic() < deadline:
    signal_all(signal.SIGKILL)
    time.sleep(0.01)
    if not reap(False) and (init or not descendants()):
        break
for pid in ([] if init else descendants()):
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as line:
            shown = line.read(200).replace(b'\0', b' ').decode('utf-8', 'replace').strip()
    except OSError:
        shown = '?'
    say('survivor %d %s' % (pid, shown))
if status is None or os.WIFSIGNALED(status):
    number = os.WTERMSIG(status) if status is not None else signal.SIGKILL
    if not init:
        if number != signal.SIGKILL:
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(128 + number)
os._exit(os.WEXITSTATUS(status))
`;
