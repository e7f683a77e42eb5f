import { describe, expect, it, vi } from 'vitest';
import {
  callWithSelfHealing,
  correctedCall,
  isSecurityErrorText,
  isUnknownToolErrorText,
  isValidationErrorText,
  SelfHealingError,
  type ToolCaller,
  type ToolCallResultLike,
} from '../../src/runtime/index.js';

const VALIDATION = '<validation_error tool="t">\n<field name="currency">Required field "currency" is missing.</field>\n</validation_error>';
const ok = (text = 'done'): ToolCallResultLike => ({ content: [{ type: 'text', text }] });
const fail = (text: string): ToolCallResultLike => ({ content: [{ type: 'text', text }], isError: true });

/** A client that answers each call with the next scripted outcome and records the arguments. */
function scriptedClient(...outcomes: Array<ToolCallResultLike | Error>) {
  const calls: Array<Record<string, unknown> | undefined> = [];
  const names: string[] = [];
  const client: ToolCaller = {
    async callTool(params) {
      calls.push(params.arguments);
      names.push(params.name);
      const next = outcomes.shift();
      if (next === undefined) throw new Error('no more scripted outcomes');
      if (next instanceof Error) throw next;
      return next;
    },
  };
  return { client, calls, names };
}

function mcpError(code: number, message: string): Error {
  return Object.assign(new Error(`MCP error ${code}: ${message}`), { code });
}

async function caught(promise: Promise<unknown>): Promise<SelfHealingError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SelfHealingError) return error;
    throw error;
  }
  throw new Error('expected a SelfHealingError');
}

describe('callWithSelfHealing', () => {
  it('returns a successful result without asking for a correction', async () => {
    const { client } = scriptedClient(ok());
    const correct = vi.fn();
    expect(await callWithSelfHealing(client, 't', { a: 1 }, { correct })).toEqual(ok());
    expect(correct).not.toHaveBeenCalled();
  });

  it('hands the error text and arguments to correct and retries with what it returns', async () => {
    const { client, calls } = scriptedClient(fail(VALIDATION), ok('fixed'));
    const correct = vi.fn(() => ({ a: 1, currency: 'USD' }));
    expect(await callWithSelfHealing(client, 't', { a: 1 }, { correct })).toEqual(ok('fixed'));
    expect(correct).toHaveBeenCalledWith({ toolName: 't', args: { a: 1 }, errorText: VALIDATION, attempt: 1, failure: 'invalid-arguments' });
    expect(calls).toEqual([{ a: 1 }, { a: 1, currency: 'USD' }]);
  });

  it('returns a non-validation tool error unchanged, without correcting', async () => {
    const notFound = fail('<tool_error code="NotFound">\n<message>No such order.</message>\n</tool_error>');
    const { client } = scriptedClient(notFound);
    const correct = vi.fn();
    expect(await callWithSelfHealing(client, 't', {}, { correct })).toBe(notFound);
    expect(correct).not.toHaveBeenCalled();
  });

  it('never retries security or auth errors, even when isRetryable says yes', async () => {
    const correct = vi.fn(() => ({ token: 'guessed' }));
    for (const text of [
      '<tool_error code="UNAUTHORIZED">\n<message>Sign in first.</message>\n</tool_error>',
      '<tool_error code="X">\n<message>Permission denied for /etc/passwd.</message>\n</tool_error>',
      'Forbidden',
      'Path traversal detected',
      'Invalid API key',
    ]) {
      const result = fail(text);
      const { client } = scriptedClient(result);
      expect(await callWithSelfHealing(client, 't', {}, { correct, isRetryable: () => true })).toBe(result);
    }
    expect(correct).not.toHaveBeenCalled();
  });

  it('stops with not-retryable when a retry hits a security error', async () => {
    const { client } = scriptedClient(fail(VALIDATION), fail('Access denied'));
    const error = await caught(callWithSelfHealing(client, 't', {}, { correct: () => ({ x: 1 }), maxRetries: 3 }));
    expect(error.reason).toBe('not-retryable');
    expect(error.attempts.map((a) => a.errorText)).toEqual([VALIDATION, 'Access denied']);
  });

  it('throws on exhaustion, keeping every attempt’s arguments and error', async () => {
    const errors = ['<validation_error>1</validation_error>', '<validation_error>2</validation_error>', '<validation_error>3</validation_error>'];
    const { client } = scriptedClient(...errors.map(fail));
    let n = 0;
    const correct = vi.fn(() => ({ n: ++n }));
    const error = await caught(callWithSelfHealing(client, 'create_order', { n: 0 }, { correct, maxRetries: 2 }));
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('SelfHealingError');
    expect(error.reason).toBe('exhausted');
    expect(error.toolName).toBe('create_order');
    expect(error.attempts.map((a) => [a.attempt, a.args, a.errorText])).toEqual([
      [1, { n: 0 }, errors[0]],
      [2, { n: 1 }, errors[1]],
      [3, { n: 2 }, errors[2]],
    ]);
    expect(error.attempts[2]?.result).toEqual(fail(errors[2] as string));
    expect(correct).toHaveBeenCalledTimes(2);
    expect(error.message).toMatch(/^Tool "create_order" could not be healed \(exhausted\) after 3 attempts:\n {2}attempt 1: <validation_error>1/);
  });

  it('with maxRetries 0, a validation error throws at once', async () => {
    const { client } = scriptedClient(fail(VALIDATION));
    const correct = vi.fn();
    const error = await caught(callWithSelfHealing(client, 't', {}, { correct, maxRetries: 0 }));
    expect(error.reason).toBe('exhausted');
    expect(error.attempts).toHaveLength(1);
    expect(correct).not.toHaveBeenCalled();
  });

  it('stops when correct declines or returns the same arguments', async () => {
    for (const answer of [null, undefined, { a: 1 }, [1] as unknown as Record<string, unknown>]) {
      const { client, calls } = scriptedClient(fail(VALIDATION), ok());
      const error = await caught(callWithSelfHealing(client, 't', { a: 1 }, { correct: () => answer }));
      expect(error.reason).toBe('declined');
      expect(calls).toHaveLength(1);
    }
  });

  it('reports a correct() that throws as correction-failed, with the cause', async () => {
    const { client } = scriptedClient(fail(VALIDATION));
    const llmDown = new Error('LLM timeout');
    const error = await caught(callWithSelfHealing(client, 't', {}, { correct: async () => Promise.reject(llmDown) }));
    expect(error.reason).toBe('correction-failed');
    expect(error.cause).toBe(llmDown);
  });

  it('uses isRetryable to widen what gets corrected', async () => {
    const { client } = scriptedClient(fail('<tool_error code="UNKNOWN_ACTION">\n<message>The action "destory" does not exist.</message>\n</tool_error>'), ok());
    const correct = vi.fn(() => ({ action: 'destroy' }));
    const isRetryable = vi.fn((text: string) => text.includes('UNKNOWN_ACTION'));
    expect(await callWithSelfHealing(client, 't', { action: 'destory' }, { correct, isRetryable })).toEqual(ok());
    expect(isRetryable).toHaveBeenCalledTimes(1);
  });

  it('treats a thrown InvalidParams input-validation error (older SDKs) as a validation error', async () => {
    const { client } = scriptedClient(mcpError(-32602, 'Input validation error: Invalid arguments for tool t: Required'), ok());
    const correct = vi.fn(() => ({ fixed: true }));
    expect(await callWithSelfHealing(client, 't', {}, { correct })).toEqual(ok());
    expect(correct.mock.calls[0]?.[0].errorText).toContain('Input validation error');
  });

  it('lets other thrown errors (transport, protocol) propagate unchanged', async () => {
    const boom = mcpError(-32000, 'Connection closed');
    const { client } = scriptedClient(boom);
    await expect(callWithSelfHealing(client, 't', {}, { correct: vi.fn() })).rejects.toBe(boom);
  });

  it('rejects a bad maxRetries', async () => {
    const { client } = scriptedClient(ok());
    await expect(callWithSelfHealing(client, 't', {}, { correct: vi.fn(), maxRetries: -1 })).rejects.toThrow(RangeError);
  });
});

describe('error classification', () => {
  it('recognizes validation errors: ours and the SDK’s flat text', () => {
    expect(isValidationErrorText(VALIDATION)).toBe(true);
    expect(isValidationErrorText('MCP error -32602: Input validation error: Invalid arguments for tool t')).toBe(true);
    expect(isValidationErrorText('<tool_error code="X"><message>nope</message></tool_error>')).toBe(false);
  });

  it('recognizes security errors but not validation errors about auth-named fields', () => {
    expect(isSecurityErrorText('<tool_error code="AUTH_EXPIRED">\n<message>Session over.</message>\n</tool_error>')).toBe(true);
    expect(isSecurityErrorText('401 Unauthorized')).toBe(true);
    expect(isSecurityErrorText('<validation_error>\n<field name="auth_token">Invalid token. You sent: 1.</field>\n</validation_error>')).toBe(false);
    expect(isSecurityErrorText('Order 403 not found')).toBe(false);
  });
});

describe('callWithSelfHealing and renamed tools', () => {
  const UNKNOWN = '<tool_error code="UNKNOWN_TOOL">\n<message>The tool "get_stock" was renamed to "check_stock".</message>\n<recovery>Call "check_stock" instead.</recovery>\n</tool_error>';

  it('hands an UNKNOWN_TOOL error to correct, which may call another tool with correctedCall', async () => {
    const { client, calls, names } = scriptedClient(fail(UNKNOWN), ok('12'));
    const correct = vi.fn(({ args }: { args: Readonly<Record<string, unknown>> }) => correctedCall('check_stock', { ...args }));
    expect(await callWithSelfHealing(client, 'get_stock', { sku: 'A-1' }, { correct })).toEqual(ok('12'));
    expect(correct).toHaveBeenCalledWith({ toolName: 'get_stock', args: { sku: 'A-1' }, errorText: UNKNOWN, attempt: 1, failure: 'unknown-tool' });
    expect(names).toEqual(['get_stock', 'check_stock']);
    expect(calls).toEqual([{ sku: 'A-1' }, { sku: 'A-1' }]);
  });

  it('asks about the tool it last called, and records each attempt\'s tool', async () => {
    const { client, names } = scriptedClient(fail(UNKNOWN), fail(VALIDATION), ok());
    const correct = vi.fn((request: { toolName: string; args: Readonly<Record<string, unknown>> }) =>
      request.toolName === 'get_stock' ? correctedCall('check_stock', { sku: 'A-1' }) : { sku: 'A-1', currency: 'USD' },
    );
    await callWithSelfHealing(client, 'get_stock', { sku: 'A-1' }, { correct, maxRetries: 2 });
    expect(names).toEqual(['get_stock', 'check_stock', 'check_stock']);
    expect(correct.mock.calls[1]?.[0]).toMatchObject({ toolName: 'check_stock', failure: 'invalid-arguments' });
    const failing = scriptedClient(fail(UNKNOWN), fail(VALIDATION));
    const error = await caught(callWithSelfHealing(failing.client, 'get_stock', { sku: 'A-1' }, { correct: () => correctedCall('check_stock', { sku: 'A-1' }) }));
    expect(error.reason).toBe('exhausted');
    expect(error.attempts.map((a) => a.toolName)).toEqual(['get_stock', 'check_stock']);
    expect(error.message).toContain('attempt 2 (check_stock)');
  });

  it('old callers keep working: a plain object is always arguments, even with keys named toolName and args', async () => {
    const { client, names, calls } = scriptedClient(fail(VALIDATION), ok());
    await callWithSelfHealing(client, 't', { a: 1 }, { correct: () => ({ toolName: 'other', args: {} }) });
    expect(names).toEqual(['t', 't']);
    expect(calls[1]).toEqual({ toolName: 'other', args: {} });
  });

  it('declines the same call again, and a corrected call without a name', async () => {
    const same = scriptedClient(fail(UNKNOWN));
    expect((await caught(callWithSelfHealing(same.client, 'get_stock', { sku: 'A-1' }, { correct: () => correctedCall('get_stock', { sku: 'A-1' }) }))).reason).toBe('declined');
    const nameless = scriptedClient(fail(UNKNOWN));
    expect((await caught(callWithSelfHealing(nameless.client, 'get_stock', {}, { correct: () => correctedCall('', {}) }))).reason).toBe('declined');
  });

  it('recognises unknown tools as our UNKNOWN_TOOL error and as the SDKs\' own text, thrown or returned', async () => {
    expect(isUnknownToolErrorText(UNKNOWN)).toBe(true);
    expect(isUnknownToolErrorText('MCP error -32602: Tool get_stock not found')).toBe(true);
    expect(isUnknownToolErrorText('MCP error -32602: MCP error -32602: Tool get_stock not found')).toBe(true);
    expect(isUnknownToolErrorText('The stock of tool X was not found in the warehouse')).toBe(false);
    const thrown = scriptedClient(mcpError(-32602, 'Tool get_stock not found'), ok());
    expect(await callWithSelfHealing(thrown.client, 'get_stock', {}, { correct: () => correctedCall('check_stock', {}) })).toEqual(ok());
    expect(thrown.names).toEqual(['get_stock', 'check_stock']);
  });
});
