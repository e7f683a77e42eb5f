/**
 * Credentials the Action holds: its token, header values and the variables passed to a server
 * by name (usually from secrets), the user:password or secret-looking query values of a
 * server's URL (`https://user:pass@host/mcp`, `?api_key=…`), and the secrets the runner puts
 * in the step's environment (ACTIONS_RUNTIME_TOKEN…), which a server can read from our process.
 * Each is registered with the runner (so its log masks it) and replaced by `***` in everything
 * the Action writes: comment, summary, annotations, SARIF, review file, artifact, outputs,
 * error messages. Pure apart from the callback that registers a new secret.
 *
 * A secret is found as written, JSON-escaped, percent-encoded and base64-encoded (standard and
 * URL-safe, at any byte offset, as the runner's own masker does: a server that reads the
 * `AUTHORIZATION: basic …` header actions/checkout persists publishes the token that way).
 * Any other transformation (split, reversed, another encoding) is not recognised: SECURITY.md
 * says so, and why the job that runs pull request code should hold nothing worth stealing.
 */

import { redactUrl, urlSecrets } from '../../compile/index.js';

export { redactUrl };

export const REDACTED = '***';

/** Shorter values are not secrets worth the name, and masking them would garble the log. */
const MIN_SECRET_LENGTH = 4;
/** A base64 run shorter than this could be anything: not worth masking. */
const MIN_ENCODED_LENGTH = 8;

/**
 * The variables of the step's environment that hold a credential: the runner's own (the runtime
 * and OIDC request tokens, the github-token input), and any whose name says it is one
 * (NPM_TOKEN, OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, DB_PASSWORD…), as a job's `env:` sets them.
 */
const SECRET_VARIABLE = /(^|[-_])(TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API[-_]?KEY|ACCESS[-_]?KEY|PRIVATE[-_]?KEY|CREDENTIALS?)$|(^|[-_])SECRET([-_]|$)/i;

/**
 * Collects secrets and takes them out of text. `onSecret` is called once per new secret (the
 * Action registers it with `core.setSecret`, so the runner masks it in the log).
 */
export class Redactor {
  private readonly secrets = new Set<string>();
  private readonly urls = new Map<string, string>();
  private ordered: string[] = [];

  constructor(private readonly onSecret: (secret: string) => void = () => undefined) {}

  /** A value that must never be shown: a header value (and the credential after its scheme). */
  addHeaderValues(headers: Record<string, string> | undefined): void {
    for (const value of Object.values(headers ?? {})) {
      this.add(value);
      const scheme = /^[A-Za-z][\w-]*\s+(\S.*)$/.exec(value.trim());
      if (scheme) this.add(scheme[1] as string);
    }
  }

  /** A value that must never be shown, whatever it is (the token, a variable passed to a server). */
  addSecret(value: string | undefined): void {
    if (value !== undefined) this.add(value);
  }

  /** The values of `env` whose names hold credentials (SECRET_VARIABLE), and of the variables named in `names`. */
  addEnvironment(env: NodeJS.ProcessEnv, names: Iterable<string> = []): void {
    const named = new Set([...names].map((name) => name.toUpperCase()));
    for (const [name, value] of Object.entries(env)) {
      if (value !== undefined && (SECRET_VARIABLE.test(name) || named.has(name.toUpperCase()))) this.add(value);
    }
  }

  addUrl(url: string | undefined): void {
    if (url === undefined) return;
    const secrets = urlSecrets(url);
    if (secrets.length === 0) return;
    this.urls.set(url, redactUrl(url));
    for (const secret of secrets) this.add(secret);
  }

  /** `text` with every known credential replaced by `***` (in each form `forms` lists). */
  redact(text: string): string {
    let out = text;
    for (const [url, redacted] of this.urls) out = out.split(url).join(redacted);
    for (const secret of this.ordered) out = out.split(secret).join(REDACTED);
    return out;
  }

  private add(secret: string): void {
    const value = secret.trim();
    if (value.length < MIN_SECRET_LENGTH || this.secrets.has(value)) return;
    this.secrets.add(value);
    this.onSecret(value);
    // Longest first, so a secret that contains another is replaced whole.
    this.ordered = [...new Set([...this.ordered, ...forms(value)])].sort((a, b) => b.length - a.length);
  }
}

/** The forms a secret is looked for in: as written, JSON-escaped, percent-encoded, base64. */
function forms(secret: string): string[] {
  const out = [secret, JSON.stringify(secret).slice(1, -1)];
  try {
    out.push(encodeURIComponent(secret));
  } catch {
    // A lone surrogate has no percent-encoding: nothing to look for.
  }
  for (const encoded of base64Cores(Buffer.from(secret, 'utf8'))) out.push(encoded, encoded.replace(/\+/g, '-').replace(/\//g, '_'));
  return out.filter((form) => form.length >= MIN_SECRET_LENGTH);
}

/**
 * The base64 characters that depend on `bytes` alone, for each of the three offsets (mod 3)
 * at which they may start in the encoded text: the characters shared with the bytes before or
 * after are left out (so up to two bytes at each end stay visible, never the secret).
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64').replace(/=+$/, '');
    // Characters 4k..4k+3 encode bytes 3k..3k+2: a group that holds a byte not ours depends on it.
    const first = offset === 0 ? 0 : 4;
    const whole = Math.floor((offset + bytes.length) / 3);
    const core = encoded.slice(first, whole * 4);
    if (core.length >= MIN_ENCODED_LENGTH) cores.push(core);
  }
  return cores;
}
