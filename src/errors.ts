/**
 * An error meant for the person running the tool: its message is a complete, plain-words
 * paragraph saying what went wrong and what to do. Shells print it without a stack trace and
 * exit with `exitCode` (2: usage, config, compile or input error).
 */
export class UserError extends Error {
  override readonly name = 'UserError';

  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 2,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
