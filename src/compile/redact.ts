/**
 * A URL as it may be printed: its user information (`user:password@`) and the value of every
 * query or fragment parameter whose name looks like a credential (`api_key`, `token`, `key`,
 * `secret`, `password`, `auth`, `sig`…) replaced by `***`. The rest is kept as written,
 * so the printed URL still says which server was meant. Text that does not parse as a URL is
 * redacted the same way, by pattern.
 */
export function redactUrl(url: string): string {
  const scheme = /^([a-z][a-z\d+.-]*:\/\/)([^/?#]*)(.*)$/is.exec(url);
  if (!scheme) return redactParameters(url);
  const [, protocol, authority, rest] = scheme as unknown as [string, string, string, string];
  // The whole user information: some services take the key as the user name (`KEY:@host`).
  const at = authority.lastIndexOf('@');
  return `${protocol}${at >= 0 ? `***@${authority.slice(at + 1)}` : authority}${redactParameters(rest)}`;
}

/** Parameter names that carry credentials by convention (substrings, case-insensitive). */
const SECRET_PARAMETER = /key|token|secret|pass|pwd|auth|cred|sig|session|jwt|bearer/i;

/**
 * The secrets a URL holds, to mask wherever they might appear: the user name and password
 * (either may be the key: `https://TOKEN@host`, `https://KEY:@host`) and the values of
 * secret-looking query parameters, each as written in the URL and decoded.
 */
export function urlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const secrets: string[] = [];
  const add = (raw: string) => secrets.push(raw, percentDecoded(raw));
  if (parsed.password !== '') add(parsed.password);
  if (parsed.username !== '') add(parsed.username);
  for (const [name, value] of parsed.searchParams) {
    if (SECRET_PARAMETER.test(name) && value !== '') secrets.push(value, encodeURIComponent(value));
  }
  return [...new Set(secrets)];
}

function redactParameters(text: string): string {
  return text.replace(/([?&#;])([^=&#;]*)=([^&#;]*)/g, (whole, separator: string, name: string) =>
    SECRET_PARAMETER.test(percentDecoded(name)) ? `${separator}${name}=***` : whole,
  );
}

/** `text` with its percent-escapes decoded; a stray `%` (not an escape) stays as typed. */
export function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
