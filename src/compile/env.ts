/**
 * The environment a server we start gets. The server is the code under review: under the
 * Action it comes from the pull request, so it must not see what the runner keeps for the job
 * (the token, the runtime and OIDC credentials, the files that set outputs and later steps'
 * environment). Two modes:
 *
 * - isolated (`--isolate-env`; the Action, always): only the variables of `ISOLATED_ENV` a
 *   runtime needs to start, plus exactly what the user names: `env` values and `passEnv` names;
 * - inherit (the CLI's default: a developer's own shell): our whole environment except the
 *   runner's internals (`RUNNER_INTERNALS`) and the GitHub tokens (`WITHHELD_UNLESS_NAMED`).
 *
 * In both, `env` values are set as given and a `passEnv` name passes that variable, except a
 * runner internal, which is never passed (naming one is refused when the config or flags are read).
 * Names compare case-insensitively: Windows and npm's `npm_config_*` do.
 */

/** `NAME`, or `PREFIX*` for every name that starts with PREFIX. */
type Pattern = string;

/**
 * What a server gets in isolated mode, with why it needs it. Nothing here is a credential by
 * nature; variables that may embed one (package index URLs, auth tokens) are left for the
 * user to name.
 */
export const ISOLATED_ENV: ReadonlyArray<readonly [Pattern, string]> = [
  ['PATH', 'finds the interpreter or binary the command names (node, python, uvx, npx, docker)'],
  ['HOME', 'package managers and runtimes keep their caches and config under it (npm, pip, uv, cargo)'],
  ['USER', 'some runtimes look the user up from it (Python getpass, os.userInfo fallbacks)'],
  ['LOGNAME', 'the same, on systems that set LOGNAME instead of USER'],
  ['SHELL', 'npx and npm run-script start commands through it'],
  ['LANG', 'the text encoding of stdin/stdout (Python picks UTF-8 from it)'],
  ['LANGUAGE', 'the same, for gettext'],
  ['LC_*', 'the locale categories, for the same reason as LANG'],
  ['TZ', 'the time zone: dates a server puts in its descriptions'],
  ['TMPDIR', 'scratch files (POSIX)'],
  ['TMP', 'scratch files (Windows, some tools on POSIX)'],
  ['TEMP', 'scratch files (Windows)'],
  ['XDG_CONFIG_HOME', 'where tools read their config when it is not under HOME'],
  ['XDG_CACHE_HOME', 'where tools keep caches (uv, pip) when not under HOME'],
  ['XDG_DATA_HOME', 'where tools keep installed data (uv-managed Pythons)'],
  ['XDG_RUNTIME_DIR', 'per-user runtime sockets some runtimes expect'],
  ['CI', 'tells tools the run is unattended (no prompts, no spinners)'],
  ['NO_COLOR', 'keeps colour codes out of the stderr we quote in diagnoses'],
  ['RUNNER_OS', 'the runner platform, for servers that branch on it'],
  ['RUNNER_ARCH', 'the runner architecture, likewise'],
  ['RUNNER_TEMP', 'the runner scratch directory, cleaned after the job'],
  ['HTTP_PROXY', 'the network route of the runner, for servers that download at start (npx, uvx); dropped when it embeds credentials'],
  ['HTTPS_PROXY', 'likewise'],
  ['ALL_PROXY', 'likewise'],
  ['NO_PROXY', 'the hosts that bypass the proxy'],
  ['SSL_CERT_FILE', 'a corporate CA bundle (OpenSSL, Python)'],
  ['SSL_CERT_DIR', 'likewise, as a directory'],
  ['REQUESTS_CA_BUNDLE', 'a corporate CA bundle (Python requests)'],
  ['CURL_CA_BUNDLE', 'a corporate CA bundle (curl, httpx)'],
  ['NODE_EXTRA_CA_CERTS', 'a corporate CA bundle (Node)'],
  ['NODE_OPTIONS', 'Node flags the job set (memory limits, loaders the build needs)'],
  ['NODE_PATH', 'extra module directories some installs rely on'],
  ['NPM_CONFIG_CACHE', 'where npx keeps downloaded packages'],
  ['NPM_CONFIG_USERCONFIG', 'the .npmrc setup-node writes (its token stays in NODE_AUTH_TOKEN, not passed)'],
  ['NPM_CONFIG_REGISTRY', 'the registry npx downloads from'],
  ['NPM_CONFIG_PREFIX', 'where global packages and their binaries live'],
  ['VIRTUAL_ENV', 'the active Python virtual environment'],
  ['PYTHON*', 'Python interpreter settings (PYTHONPATH, PYTHONHOME, PYTHONUNBUFFERED, PYTHONIOENCODING…)'],
  ['CONDA_PREFIX', 'the active conda environment'],
  ['CONDA_DEFAULT_ENV', 'likewise, by name'],
  ['PYENV_ROOT', 'where pyenv keeps its Pythons'],
  ['PYENV_VERSION', 'the Python pyenv selects'],
  ['UV_CACHE_DIR', 'where uv/uvx keep packages (setup-uv sets it)'],
  ['UV_TOOL_DIR', 'where uv keeps installed tools'],
  ['UV_PYTHON', 'the Python uv runs with'],
  ['UV_PYTHON_INSTALL_DIR', 'where uv keeps the Pythons it installs'],
  ['PIPX_HOME', 'where pipx keeps its environments'],
  ['PIPX_BIN_DIR', 'where pipx puts its binaries'],
  ['JAVA_HOME', 'the JDK a Java server starts with'],
  ['MAVEN_HOME', 'Maven, for servers started through mvn'],
  ['M2_HOME', 'likewise, older name'],
  ['GRADLE_USER_HOME', 'Gradle caches, for servers started through gradle'],
  ['GOPATH', 'Go workspace and module cache (go run)'],
  ['GOROOT', 'the Go toolchain'],
  ['GOCACHE', 'the Go build cache'],
  ['GOMODCACHE', 'the Go module cache'],
  ['GOFLAGS', 'default go command flags the job set'],
  ['GOPROXY', 'where go downloads modules'],
  ['GOTOOLCHAIN', 'which Go toolchain go selects'],
  ['CARGO_HOME', 'cargo binaries and registry cache (cargo run)'],
  ['RUSTUP_HOME', 'rustup toolchains'],
  ['RUSTUP_TOOLCHAIN', 'the toolchain rustup selects'],
  ['DOTNET_ROOT', 'the .NET runtime'],
  ['NUGET_PACKAGES', 'the NuGet package cache'],
  ['GEM_HOME', 'Ruby gems'],
  ['GEM_PATH', 'likewise'],
  ['DENO_DIR', 'Deno caches'],
  ['BUN_INSTALL', 'Bun installation'],
  ['LD_LIBRARY_PATH', 'shared libraries of toolchains installed outside system paths (conda, custom builds)'],
  ['SYSTEMROOT', 'Windows: Node and Python cannot start without it'],
  ['WINDIR', 'Windows: the same directory, older name'],
  ['COMSPEC', 'Windows: the shell npx and .cmd wrappers run through'],
  ['PATHEXT', 'Windows: which extensions PATH lookups try (.cmd for npx)'],
  ['SYSTEMDRIVE', 'Windows: system paths'],
  ['USERPROFILE', 'Windows: the home directory'],
  ['HOMEDRIVE', 'Windows: the home drive'],
  ['HOMEPATH', 'Windows: the home path'],
  ['APPDATA', 'Windows: npm and pip config and caches'],
  ['LOCALAPPDATA', 'Windows: caches (npm, uv)'],
  ['PROGRAMDATA', 'Windows: machine-wide tool data'],
  ['PROGRAMFILES', 'Windows: installed runtimes'],
  ['PROGRAMFILES(X86)', 'Windows: installed 32-bit runtimes'],
  ['NUMBER_OF_PROCESSORS', 'Windows: runtimes size thread pools from it'],
  ['PROCESSOR_ARCHITECTURE', 'Windows: the architecture runtimes load binaries for'],
];

/**
 * Never given to a server, whatever the mode or the names the user passes: the runner's
 * internals, which no server needs and which the job's security rests on.
 */
export const RUNNER_INTERNALS: ReadonlyArray<readonly [Pattern, string]> = [
  ['INPUT_*', "the Action's inputs: its github-token and the secret values of headers among them"],
  ['ACTIONS_*', "the job's runtime token, OIDC token request URL and token, cache and results service URLs"],
  ['GITHUB_OUTPUT', 'a file whose lines set step outputs'],
  ['GITHUB_ENV', "a file whose lines set later steps' environment"],
  ['GITHUB_STATE', "a file whose lines set the Action's post-step state"],
  ['GITHUB_STEP_SUMMARY', "a file that becomes the job's summary"],
  ['GITHUB_PATH', "a file whose lines prepend to later steps' PATH"],
];

/**
 * Withheld in both modes unless named with `passEnv`: the tokens GitHub tooling reads. A
 * developer's shell or a workflow step often exports one for other tools; a server that
 * really needs it gets it by name, so no token reaches PR code by accident.
 */
export const WITHHELD_UNLESS_NAMED: readonly Pattern[] = ['GITHUB_TOKEN', 'GH_TOKEN'];

export interface EnvRequest {
  /** Values set for the server, whatever the mode. */
  env?: Record<string, string>;
  /** Names of our variables the server gets (isolated mode; the withheld tokens in either). */
  passEnv?: string[];
  /** Isolated mode; inherit otherwise. */
  isolateEnv?: boolean;
  /**
   * The server's own launcher (the proxy, which a client starts in place of the server): the
   * server gets everything, as if the client had started it directly. Never for code under review.
   */
  launcher?: boolean;
}

/** The environment of a server started from `parent` (normally `process.env`). */
export function serverEnvironment(parent: NodeJS.ProcessEnv, request: EnvRequest): Record<string, string> {
  if (request.launcher) return { ...(Object.fromEntries(Object.entries(parent).filter(([, v]) => v !== undefined)) as Record<string, string>), ...request.env };
  const named = new Set((request.passEnv ?? []).map((name) => name.toUpperCase()));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined || matchesAny(name, RUNNER_INTERNALS.map(([pattern]) => pattern))) continue;
    const passes = named.has(name.toUpperCase()) || (request.isolateEnv ? isolatedAllows(name, value) : !matchesAny(name, WITHHELD_UNLESS_NAMED));
    if (passes) out[name] = value;
  }
  return { ...out, ...request.env };
}

/** Why `name` cannot be passed to a server, or undefined when it can. */
export function passEnvProblem(name: string): string | undefined {
  if (!/^[A-Za-z_][\w.()-]*$/.test(name)) return `"${name}" is not an environment variable name`;
  const internal = RUNNER_INTERNALS.find(([pattern]) => matches(name, pattern));
  if (internal) return `${name} is never passed to a server: ${internal[1]}`;
  return undefined;
}

/** Whether a variable of our environment was withheld from a server started with `request`. */
export function withheldFrom(request: EnvRequest, name: string, parent: NodeJS.ProcessEnv = process.env): boolean {
  return parent[name] !== undefined && request.env?.[name] === undefined && serverEnvironment(parent, request)[name] === undefined;
}

function isolatedAllows(name: string, value: string): boolean {
  if (!matchesAny(name, ISOLATED_ENV.map(([pattern]) => pattern))) return false;
  // A proxy URL with a user and password is a credential: pass it only by name.
  return !(/_PROXY$/i.test(name) && /:\/\/[^/@]*@/.test(value));
}

function matchesAny(name: string, patterns: readonly Pattern[]): boolean {
  return patterns.some((pattern) => matches(name, pattern));
}

function matches(name: string, pattern: Pattern): boolean {
  const upper = name.toUpperCase();
  return pattern.endsWith('*') ? upper.startsWith(pattern.slice(0, -1)) : upper === pattern;
}
