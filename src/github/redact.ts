/**
 * Credentials the Action is given: header values (usually from secrets), and the user:password
 * or secret-looking query values of a server's URL (`https://user:pass@host/mcp`,
 * `?api_key=…`). Each is registered with the runner (so its log masks it) and replaced by
 * `***` in everything the Action writes: comment, summary, SARIF, review file, artifact,
 * outputs, error messages. Pure apart from the callback that registers a new secret.
 */

import { redactUrl, urlSecrets } from '../compile/redact.js';

export { redactUrl };

export const REDACTED = '***';

/** Shorter values are not secrets worth the name, and masking them would garble the log. */
const MIN_SECRET_LENGTH = 4;

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

  addUrl(url: string | undefined): void {
    if (url === undefined) return;
    const secrets = urlSecrets(url);
    if (secrets.length === 0) return;
    this.urls.set(url, redactUrl(url));
    for (const secret of secrets) this.add(secret);
  }

  /** `text` with every known credential replaced by `***` (as written, and as JSON writes it). */
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
    const forms = new Set([value, JSON.stringify(value).slice(1, -1)]);
    // Longest first, so a secret that contains another is replaced whole.
    this.ordered = [...new Set([...this.ordered, ...forms])].sort((a, b) => b.length - a.length);
  }
}
