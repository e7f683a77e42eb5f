/** Where contracts come from: a server started over stdio, one reached over HTTP, or a file. */
export type ContractSource = CommandSource | UrlSource | FileSource;

export interface CommandSource {
  kind: 'command';
  /** argv: the program, then its arguments (already split; run without a shell). */
  command: string[];
  cwd?: string;
  env?: Record<string, string>;
  timeoutMs: number;
  /** The server speaks streamable HTTP at this address once started, instead of stdio. */
  url?: string;
  headers?: Record<string, string>;
  /** Read JSON-RPC messages that follow log text on the same stdout line. */
  lenientStdout?: boolean;
}

export interface UrlSource {
  kind: 'url';
  url: string;
  headers?: Record<string, string>;
  timeoutMs: number;
}

/** A tools/list dump or a lockfile. */
export interface FileSource {
  kind: 'file';
  path: string;
}

export type ServerSource = CommandSource | UrlSource;

export const DEFAULT_TIMEOUT_MS = 30_000;

/** The source as the flags that select it, for messages that say which command to run. */
export function sourceFlags(source: ContractSource): string {
  switch (source.kind) {
    case 'command': {
      const parts = [`--command ${shellQuote(source.command.map(shellQuote).join(' '))}`];
      if (source.cwd) parts.push(`--cwd ${shellQuote(source.cwd)}`);
      for (const key of Object.keys(source.env ?? {}).sort()) parts.push(`--env ${key}=…`);
      if (source.url) parts.push(`--url ${shellQuote(source.url)}`);
      for (const header of Object.keys(source.headers ?? {})) parts.push(`--header "${header}: …"`);
      if (source.lenientStdout) parts.push('--lenient-stdout');
      if (source.timeoutMs !== DEFAULT_TIMEOUT_MS) parts.push(`--timeout ${source.timeoutMs / 1000}`);
      return parts.join(' ');
    }
    case 'url':
      return [`--url ${shellQuote(source.url)}`, ...Object.keys(source.headers ?? {}).map((h) => `--header "${h}: …"`)].join(' ');
    case 'file':
      return `--file ${shellQuote(source.path)}`;
  }
}

/** Quote a word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
