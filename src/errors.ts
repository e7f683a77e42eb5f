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

/**
 * What an error means for the person running the tool: a `UserError` as it is; a stack overflow
 * as one that says why it almost always happens (JSON nested tens of thousands of levels deep,
 * which JSON allows and no contract needs: a server or a file may send it on purpose); anything
 * else undefined, a bug.
 */
export function asUserError(error: unknown): UserError | undefined {
  if (error instanceof UserError) return error;
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return new UserError(
      'Stopped: the input nests too deeply to process (a schema or value nested thousands of levels deep, which no real contract is). ' +
        'Check what the server or the file sends; if it is nothing like that, this is a bug: run again with --debug and report it.',
      2,
      { cause: error },
    );
  }
  return undefined;
}
