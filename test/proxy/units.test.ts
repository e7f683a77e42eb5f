/**
 * The proxy's pure parts: which server errors it recognises (on messages captured from the
 * real frameworks), how it reads schemas of each dialect, and its framing of stdio lines.
 */
import { describe, expect, it } from 'vitest';
import { expectLinearTime } from '../helpers/timing.js';
import { LineReader } from '../../src/proxy/lines.js';
import { serverValidationIssues } from '../../src/runtime/server-errors.js';
import { ArgumentValidator } from '../../src/runtime/argument-validator.js';
import { formatValidationError } from '../../src/runtime/index.js';

/** Captured from the Python SDK's MCPServer (mcp 2.x; FastMCP in mcp 1.x says the same). */
const PYTHON_SDK = `Error executing tool add: 1 validation error for addArguments
b
  Field required [type=missing, input_value={'a': 1}, input_type=dict]
    For further information visit https://errors.pydantic.dev/2.13/v/missing`;

/** Captured from FastMCP 4. */
const FASTMCP = `2 validation errors for call[add]
b
  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='x', input_type=str]
    For further information visit https://errors.pydantic.dev/2.13/v/int_parsing
items.0
  Input should be a valid list [type=list_type, input_value=[1, 2], input_type=list]
    For further information visit https://errors.pydantic.dev/2.13/v/list_type`;

/** The TypeScript SDK before 1.18: the zod 3 issues as JSON. */
const SDK_LEGACY = `MCP error -32602: Invalid arguments for tool create_order: [
  {
    "code": "invalid_type",
    "expected": "string",
    "received": "undefined",
    "path": ["currency"],
    "message": "Required"
  }
]`;

describe('serverValidationIssues', () => {
  it('reads the TypeScript SDK lines: type, size, enum and unknown-key issues with their paths', () => {
    const text =
      'MCP error -32602: Input validation error: Invalid arguments for tool t: Invalid input: expected number, received string at items[0].price\n' +
      'Too small: expected number to be >=1 at quantity\nInvalid option: expected one of "USD"|"EUR" at currency\nUnrecognized key: "colour"';
    expect(serverValidationIssues('t', text)).toEqual([
      { code: 'invalid_type', path: ['items', 0, 'price'], message: 'Invalid input: expected number, received string', expected: 'number' },
      { code: 'too_small', minimum: 1, path: ['quantity'], message: 'Too small: expected number to be >=1', origin: 'number', inclusive: true },
      { code: 'invalid_value', path: ['currency'], message: 'Invalid option: expected one of "USD"|"EUR"', values: ['USD', 'EUR'] },
      { code: 'unrecognized_keys', path: [], message: 'Unrecognized key: "colour"', keys: ['colour'] },
    ]);
  });

  it('reads the older SDK JSON issues as they are', () => {
    expect(serverValidationIssues('create_order', SDK_LEGACY)).toEqual([{ code: 'invalid_type', expected: 'string', received: 'undefined', path: ['currency'], message: 'Required' }]);
  });

  it('reads pydantic errors of the Python SDK and FastMCP, block by block', () => {
    expect(serverValidationIssues('add', PYTHON_SDK)).toEqual([{ code: 'invalid_type', path: ['b'], message: 'Field required' }]);
    expect(serverValidationIssues('add', FASTMCP)).toEqual([
      { code: 'invalid_type', path: ['b'], message: 'Input should be a valid integer, unable to parse string as an integer', expected: 'integer' },
      { code: 'invalid_type', path: ['items', 0], message: 'Input should be a valid list', expected: 'array' },
    ]);
    const text = formatValidationError(serverValidationIssues('add', PYTHON_SDK), { toolName: 'add', args: { a: 1 }, schema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } } });
    expect(text).toContain('<field name="b">Missing. Expected: integer.</field>');
  });

  it('reads a server\'s long hostile message line in linear time, and the type from the bracket that ends it', async () => {
    // A lazy message before an optional [type=…] tail backtracked over every ' [type=' of the line: seconds for this one.
    const line = (scale: number) => `  x${' [type=a,]x'.repeat(4_000 * scale)}`;
    expect(serverValidationIssues('add', `1 validation error for addArguments\nb\n${line(10)}\n`)).toEqual([{ code: 'custom', path: ['b'], message: line(10).slice(2) }]);
    await expectLinearTime('reading a hostile message line', (scale) => serverValidationIssues('add', `1 validation error for addArguments\nb\n${line(scale)}\n`));
    const tail = ' [type=int_parsing, input_value=\'x [type=missing]\', input_type=str]';
    expect(serverValidationIssues('add', `1 validation error for addArguments\nb\n  Input should be a valid integer${tail}\n`)).toEqual([
      { code: 'invalid_type', path: ['b'], message: 'Input should be a valid integer', expected: 'integer' },
    ]);
  });

  it('leaves every other error alone: other tools, other models, limits, business errors', () => {
    expect(serverValidationIssues('other', PYTHON_SDK)).toBeUndefined();
    expect(serverValidationIssues('add', PYTHON_SDK.replace('addArguments', 'User'))).toBeUndefined();
    expect(serverValidationIssues('t', 'MCP error -32602: Invalid arguments for tool t: arguments contain more than the maximum of 5 elements')).toBeUndefined();
    expect(serverValidationIssues('t', 'Invalid arguments for tool t: [not json')).toBeUndefined();
    expect(serverValidationIssues('t', '<tool_error code="NotFound"><message>No such order.</message></tool_error>')).toBeUndefined();
    expect(serverValidationIssues('t', 'Tool t not found')).toBeUndefined();
  });
});

describe('ArgumentValidator', () => {
  const validator = new ArgumentValidator();

  it('reads each dialect as the schema declares it, 2020-12 when it declares none', () => {
    const draft07Tuple = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { xy: { type: 'array', items: [{ type: 'number' }, { type: 'number' }], additionalItems: false } } };
    expect(validator.check('tuple07', draft07Tuple, { xy: [1, 2] })).toEqual({ kind: 'valid', notChecked: [] });
    expect(validator.check('tuple07', draft07Tuple, { xy: [1, 2, 3] })).toMatchObject({ kind: 'invalid', blocking: true });
    const tuple2020 = { type: 'object', properties: { xy: { type: 'array', prefixItems: [{ type: 'number' }], items: false } } };
    expect(validator.check('tuple2020', tuple2020, { xy: [1, 2] })).toMatchObject({ kind: 'invalid', blocking: true });
    // No $schema and draft-07 notation: read as draft-07 rather than refused.
    expect(validator.check('undeclared07', { ...draft07Tuple, $schema: undefined }, { xy: [1, 2, 3] })).toMatchObject({ kind: 'invalid' });
    const dependent2019 = { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object', dependentRequired: { a: ['b'] } };
    expect(validator.check('dep', dependent2019, { a: 1 })).toMatchObject({ kind: 'invalid', blocking: true });
  });

  it('does not check formats, and lets through what a coercing server accepts', () => {
    expect(validator.check('mail', { type: 'object', properties: { to: { type: 'string', format: 'email' } } }, { to: 'not an email' })).toEqual({ kind: 'valid', notChecked: [] });
    const args = { n: '5' };
    const verdict = validator.check('count', { type: 'object', properties: { n: { type: 'integer' } } }, args);
    expect(verdict).toMatchObject({ kind: 'invalid', blocking: false, errors: [{ keyword: 'type', instancePath: '/n' }] });
    expect(args).toEqual({ n: '5' });
    expect(validator.check('count', { type: 'object', properties: { n: { type: 'integer' } } }, { n: 'five' })).toMatchObject({ kind: 'invalid', blocking: true });
  });

  it('leaves tools whose schema it cannot compile unchecked, and follows a changed schema', () => {
    expect(validator.check('remote', { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } }, {})).toMatchObject({ kind: 'unchecked' });
    expect(validator.check('none', undefined, {})).toMatchObject({ kind: 'unchecked' });
    expect(validator.check('moving', { type: 'object', required: ['a'] }, { a: 1 })).toEqual({ kind: 'valid', notChecked: [] });
    expect(validator.check('moving', { type: 'object', required: ['b'] }, { a: 1 })).toMatchObject({ kind: 'invalid' });
  });

  it('runs patterns in linear time (RE2): a catastrophic one answers at once, Python-style groups are read, a lookaround or backreference is named and not run', () => {
    const catastrophic = { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+c$', minLength: 40 } }, required: ['code'] };
    // JavaScript's engine would take hours on this string (2^40 paths): an answer at all is linear time.
    expect(validator.check('catastrophic', catastrophic, { code: 'a'.repeat(40) })).toMatchObject({ kind: 'invalid', blocking: true, errors: [{ keyword: 'pattern' }] });
    expect(validator.check('catastrophic', catastrophic, { code: `${'a'.repeat(40)}c` })).toEqual({ kind: 'valid', notChecked: [] });
    const python = { type: 'object', properties: { s: { type: 'string', pattern: '^(?P<x>a)$' } } };
    expect(validator.check('python-regex', python, { s: 'b' })).toMatchObject({ kind: 'invalid' });
    const refused = {
      type: 'object',
      properties: { word: { type: 'string', pattern: '^(?!admin)\\w+$' }, twice: { type: 'string', pattern: '^(\\w)\\1$' }, n: { type: 'integer' } },
      patternProperties: { '^x-(?=.)': { type: 'string' } },
    };
    const verdict = validator.check('refused', refused, { word: 'admin', twice: 'ab', n: 'five' });
    // The rest of the schema is checked: n is not an integer.
    expect(verdict).toMatchObject({ kind: 'invalid', blocking: true, errors: [{ keyword: 'type', instancePath: '/n' }] });
    expect(verdict.kind === 'invalid' ? verdict.errors : []).toHaveLength(1);
    expect(verdict.kind === 'invalid' ? [...verdict.notChecked].sort() : []).toEqual([
      '"^(?!admin)\\\\w+$": a lookaround assertion has no linear-time match',
      '"^(\\\\w)\\\\1$": a backreference has no linear-time match',
      '"^x-(?=.)": a lookaround assertion has no linear-time match',
    ]);
  });
});

describe('LineReader', () => {
  it('hands over complete lines byte for byte, across chunks, and relays a line past the bound unread', () => {
    const lines: string[] = [];
    const overflow: string[] = [];
    const reader = new LineReader({ maxLineBytes: 10, onLine: (line) => lines.push(line.toString()), onOverflow: (bytes) => overflow.push(bytes.toString()) });
    reader.push(Buffer.from('{"a":1}\r\n{"b"'));
    reader.push(Buffer.from(':2}\nthis line is too long'));
    reader.push(Buffer.from(' still\nok\n'));
    reader.push(Buffer.from('tail'));
    expect(lines).toEqual(['{"a":1}\r\n', '{"b":2}\n', 'ok\n']);
    expect(overflow.join('')).toBe('this line is too long still\n');
    expect(reader.rest()?.toString()).toBe('tail');
  });
});
