import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { expectLinearTime } from '../helpers/timing.js';
import { z } from 'zod';
import * as z3 from 'zod/v3';
import { formatValidationError, type ValidationIssue } from '../../src/runtime/index.js';
import { sampleString } from '../../src/runtime/json-schema.js';
import { linearPattern } from '../../src/runtime/patterns.js';

/** The text of the `<field>` named `name` (the first one). */
function field(xml: string, name: string): string {
  const match = new RegExp(`<field name="${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}">([^<]*)</field>`).exec(xml);
  if (match === null) throw new Error(`no <field name="${name}"> in\n${xml}`);
  return match[1] as string;
}

const userSchema = {
  type: 'object',
  properties: {
    username: { type: 'string', minLength: 3, maxLength: 20, pattern: '^[a-zA-Z0-9_]+$' },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 18, maximum: 120 },
    role: { type: 'string', enum: ['admin', 'moderator', 'user', 'guest'] },
    code: { type: 'string', pattern: '^[A-Z]{3}$' },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 5, uniqueItems: true },
    step: { type: 'number', multipleOf: 5 },
  },
  required: ['username', 'email', 'age', 'role'],
  additionalProperties: false,
} as const;

const zodUser = z
  .object({
    username: z.string().min(3).max(20).regex(/^[a-zA-Z0-9_]+$/),
    email: z.email(),
    age: z.number().int().min(18).max(120),
    role: z.enum(['admin', 'moderator', 'user', 'guest']),
    code: z.string().regex(/^[A-Z]{3}$/).optional(),
    tags: z.array(z.string()).min(1).max(5).optional(),
    step: z.number().multipleOf(5).optional(),
  })
  .strict();

const badArgs = { username: 'ab', email: 'not-an-email', age: 15, role: 'admn', code: 'abc', tags: [], step: 7, emial: 'x' };

describe('formatValidationError with zod 4 issues', () => {
  const issues = zodUser.safeParse(badArgs).error!.issues;
  const xml = formatValidationError(issues, { toolName: 'create_user', action: 'create', args: badArgs, schema: userSchema });

  it('wraps one <field> per wrong argument in <validation_error tool action> with the seed\'s <recovery> line', () => {
    expect(xml.startsWith('<validation_error tool="create_user" action="create">\n')).toBe(true);
    expect(xml.match(/<field /g)).toHaveLength(issues.length);
    expect(xml).toContain('<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>');
  });

  it('length: what was sent and both bounds, once', () => {
    expect(field(xml, 'username')).toBe('Too short. You sent: "ab". Expected: string with at least 3 and at most 20 characters and matching the pattern ^[a-zA-Z0-9_]+$.');
  });

  it('range: states both bounds from the schema', () => {
    expect(field(xml, 'age')).toBe('Too small. You sent: 15. Expected: integer between 18 and 120 (inclusive).');
  });

  it('enum: the type, the options, and a guess at the near miss', () => {
    expect(field(xml, 'role')).toBe('Not an allowed value. You sent: "admn". Expected: string, one of "admin", "moderator", "user", "guest". Did you mean "admin"?');
  });

  it('format: names the format', () => {
    expect(field(xml, 'email')).toBe('Wrong format. You sent: "not-an-email". Expected: string in email format.');
  });

  it('pattern: quotes the pattern and a matching sample', () => {
    expect(field(xml, 'code')).toBe('Does not match the pattern. You sent: "abc". Expected: string matching the pattern ^[A-Z]{3}$. E.g. "ABC".');
  });

  it('array size and multipleOf', () => {
    expect(field(xml, 'tags')).toBe('Too few items. You sent: []. Expected: array of string with at least 1 and at most 5 items with unique items.');
    expect(field(xml, 'step')).toBe('Not an allowed multiple. You sent: 7. Expected: number that is a multiple of 5.');
  });

  it('unknown keys: a line of their own, with a did-you-mean among the declared names not already sent', () => {
    const args = { username: 'abc', emial: 'a@b.co', age: 20, role: 'user' };
    const out = formatValidationError(zodUser.safeParse(args).error!.issues, { args, schema: userSchema });
    expect(field(out, 'emial')).toBe('Not a field of this tool. You sent: "a@b.co". Did you mean "email"?');
  });

  it('unknown keys without a near name: remove them', () => {
    const args = { username: 'abc', email: 'a@b.co', age: 20, role: 'user', admin_override: true };
    const out = formatValidationError(zodUser.safeParse(args).error!.issues, { args, schema: userSchema });
    expect(field(out, 'admin_override')).toBe('Not a field of this tool. You sent: true. Remove it.');
  });

  it('missing required field: says so, with the type and the allowed values', () => {
    const args = { username: 'abc', email: 'a@b.co', age: 20 };
    const out = formatValidationError(zodUser.safeParse(args).error!.issues, { args, schema: userSchema });
    expect(field(out, 'role')).toBe('Missing. Expected: string, one of "admin", "moderator", "user", "guest".');
    expect(out).toContain('<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>');
  });

  it('wrong type: a numeric string is told to become a number', () => {
    const args = { username: 'abc', email: 'a@b.co', age: '42', role: 'user' };
    const out = formatValidationError(zodUser.safeParse(args).error!.issues, { args, schema: userSchema });
    expect(field(out, 'age')).toBe('Wrong type. You sent: "42". Expected: integer between 18 and 120 (inclusive). Send 42 as a JSON number, not as a string.');
  });

  it('works from the issues alone when no schema is given', () => {
    const out = formatValidationError(issues, { args: badArgs });
    expect(field(out, 'age')).toBe('Too small. You sent: 15. Expected: a number of at least 18.');
    expect(field(out, 'role')).toBe('Not an allowed value. You sent: "admn". Expected: one of "admin", "moderator", "user", "guest". Did you mean "admin"?');
    expect(field(out, 'code')).toBe('Does not match the pattern. You sent: "abc". Expected: a string matching the pattern ^[A-Z]{3}$. E.g. "ABC".');
    expect(out).not.toContain('<example>');
  });
});

describe('formatValidationError with zod 3 issues', () => {
  const schema = z3.z
    .object({ name: z3.z.string().min(3), email: z3.z.string().email(), role: z3.z.enum(['admin', 'user']), lit: z3.z.literal('x'), n: z3.z.number().max(10) })
    .strict();

  it('reads the zod 3 codes (invalid_enum_value, invalid_literal, invalid_string, too_big, Required)', () => {
    const args = { name: 'ab', email: 'bad', role: 'usr', lit: 'y', n: 11, nmae: 1 };
    const out = formatValidationError(schema.safeParse(args).error!.issues as ValidationIssue[], { args });
    expect(field(out, 'name')).toBe('Too short. You sent: "ab". Expected: a string with at least 3 characters.');
    expect(field(out, 'email')).toBe('Wrong format. You sent: "bad". Expected: a string in email format.');
    expect(field(out, 'role')).toBe('Not an allowed value. You sent: "usr". Expected: one of "admin", "user". Did you mean "user"?');
    expect(field(out, 'lit')).toContain('Expected: exactly "x".');
    expect(field(out, 'n')).toBe('Too large. You sent: 11. Expected: a number of at most 10.');
    expect(field(out, 'nmae')).toBe('Not a field of this tool. You sent: 1. Remove it.');
    const missing = formatValidationError(schema.safeParse({}).error!.issues as ValidationIssue[], { args: {} });
    expect(field(missing, 'name')).toBe('Missing. Expected: string.');
  });
});

describe('formatValidationError with ajv errors', () => {
  const ajv = new Ajv({ allErrors: true });
  const validate = ajv.compile({ ...userSchema, properties: { ...userSchema.properties, email: { type: 'string' } } });

  it('reads required, additionalProperties, enum, minimum, minLength, pattern, type, multipleOf', () => {
    const args = { username: 'a!', age: 15.5, role: 'admn', step: 7, emial: 'x', tags: 'one' };
    validate(args);
    const out = formatValidationError(validate.errors ?? [], { toolName: 't', args, schema: userSchema });
    expect(field(out, 'email')).toBe('Missing. Expected: string in email format.');
    expect(field(out, 'emial')).toBe('Not a field of this tool. You sent: "x". Did you mean "email"?');
    expect(field(out, 'role')).toContain('Did you mean "admin"?');
    // Two issues of one argument make one line.
    expect(out.match(/<field name="username">/g)).toHaveLength(1);
    expect(field(out, 'username')).toBe('Too short. Does not match the pattern. You sent: "a!". Expected: string with at least 3 and at most 20 characters and matching the pattern ^[a-zA-Z0-9_]+$. E.g. "example".');
    expect(field(out, 'age')).toBe('Wrong type. Too small. You sent: 15.5. Expected: integer between 18 and 120 (inclusive). Send a whole number.');
    expect(field(out, 'step')).toBe('Not an allowed multiple. You sent: 7. Expected: number that is a multiple of 5.');
    expect(field(out, 'tags')).toContain('Wrap the value in an array: ["one"].');
  });

  it('maps nested instance paths, including array indexes', () => {
    const nested = new Ajv().compile({ type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: { qty: { type: 'integer', minimum: 1 } } } } } });
    const args = { items: [{ qty: 1 }, { qty: 0 }] };
    nested(args);
    const out = formatValidationError(nested.errors ?? [], { args });
    expect(field(out, 'items[1].qty')).toBe('Too small. You sent: 0. Expected: a number of at least 1.');
  });
});

describe('reading a schema\'s type', () => {
  // A string where an array of `items` is expected: wrapping it helps only if the items may be strings.
  const wrapHint = (items: Record<string, unknown>) =>
    field(
      formatValidationError([{ code: 'invalid_type', expected: 'array', path: ['tags'], message: 'Expected array, received string' }], {
        args: { tags: 'one' },
        schema: { type: 'object', properties: { tags: { type: 'array', items } } },
      }),
      'tags',
    );

  it('offers to wrap a value only in an array whose items may have its type', () => {
    expect(wrapHint({ type: 'string' })).toContain('Wrap the value in an array: ["one"].');
    expect(wrapHint({ type: ['integer', 'string'] })).toContain('Wrap the value in an array');
    expect(wrapHint({ minLength: 1 })).toContain('Wrap the value in an array');
    expect(wrapHint({ type: 'object' })).not.toContain('Wrap');
  });

  it('reads a type that names no type ([], 5) as admitting nothing, as the validators that accept it do', () => {
    expect(wrapHint({ type: [] })).not.toContain('Wrap');
    expect(wrapHint({ type: 5 })).not.toContain('Wrap');
    expect(wrapHint({ type: [5, 'string'] })).toContain('Wrap the value in an array');
  });
});

describe('sent values, escaping, example', () => {
  it('truncates long sent values', () => {
    const args = { username: 'x'.repeat(500), email: 'a@b.co', age: 20, role: 'user' };
    const out = formatValidationError(zodUser.safeParse(args).error!.issues, { args, schema: userSchema });
    expect(field(out, 'username')).toMatch(/You sent: "x{99}… \(truncated, 502 characters\)\./);
  });

  it('escapes hostile tool names, actions, field names and values', () => {
    const evil = '</field></validation_error><x>&';
    const out = formatValidationError([{ code: 'custom', path: [evil], message: evil }], { toolName: evil, action: evil, args: { [evil]: evil } });
    expect(out.match(/<\/validation_error>/g)).toHaveLength(1);
    expect(out.match(/<\/field>/g)).toHaveLength(1);
    expect(out).toContain('tool="&lt;/field&gt;&lt;/validation_error&gt;&lt;x&gt;&amp;"');
    expect(out).toContain('You sent: "&lt;/field>&lt;/validation_error>&lt;x>&amp;"');
  });

  it('adds a minimal valid <example> from the schema when asked', () => {
    const out = formatValidationError(zodUser.safeParse({}).error!.issues, { args: {}, schema: userSchema, example: true });
    const example = JSON.parse(/<example>(.*)<\/example>/.exec(out)?.[1] ?? 'null') as Record<string, unknown>;
    expect(example).toEqual({ username: 'example', email: 'user@example.com', age: 18, role: 'admin' });
    expect(zodUser.safeParse(example).success).toBe(true);
  });

  it('picks the union branch of the failing action for the example and the hints', () => {
    const tool = z.discriminatedUnion('action', [
      z.object({ action: z.literal('create'), email: z.email(), name: z.string().min(2) }),
      z.object({ action: z.literal('list'), limit: z.number().int().min(1).optional() }),
    ]);
    const schema = z.toJSONSchema(tool);
    const args = { action: 'create', name: 'x' };
    const out = formatValidationError(tool.safeParse(args).error!.issues, { toolName: 'users', action: 'create', args, schema, example: true });
    expect(field(out, 'email')).toBe('Missing. Expected: string in email format.');
    expect(field(out, 'name')).toBe('Too short. You sent: "x". Expected: string with at least 2 characters.');
    const example = JSON.parse(/<example>(.*)<\/example>/.exec(out)?.[1] ?? 'null');
    expect(example).toEqual({ action: 'create', email: 'user@example.com', name: 'example' });
    expect(tool.safeParse(example).success).toBe(true);
  });

  it('tells an unknown discriminator value which actions exist', () => {
    const tool = z.discriminatedUnion('action', [z.object({ action: z.literal('create') }), z.object({ action: z.literal('list') })]);
    const args = { action: 'lst' };
    const out = formatValidationError(tool.safeParse(args).error!.issues, { args });
    expect(field(out, 'action')).toBe('Not an allowed value. You sent: "lst". Expected: one of "create", "list". Did you mean "list"?');
  });

  it('leaves the example out when no valid value can be built', () => {
    const schema = { type: 'object', properties: { id: { type: 'string', pattern: '^[0-9a-f]{24}$' } }, required: ['id'] };
    const out = formatValidationError([{ keyword: 'required', instancePath: '', params: { missingProperty: 'id' } }], { args: {}, schema, example: true });
    expect(out).not.toContain('<example>');
    expect(field(out, 'id')).toBe('Missing. Expected: string matching the pattern ^[0-9a-f]{24}$.');
  });

  it('follows local $refs and survives recursive schemas', () => {
    const schema = {
      type: 'object',
      $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' }, size: { type: 'integer', maximum: 3 } }, required: ['size'] } },
      properties: { root: { $ref: '#/$defs/node' } },
      required: ['root'],
    };
    const args = { root: { child: { size: 9 } } };
    const out = formatValidationError([{ keyword: 'maximum', instancePath: '/root/child/size', params: { comparison: '<=', limit: 3 }, message: 'must be <= 3' }], { args, schema, example: true });
    expect(field(out, 'root.child.size')).toBe('Too large. You sent: 9. Expected: integer of at most 3.');
    // An example only when something is missing: it shows what to add.
    expect(out).not.toContain('<example>');
    const missing = formatValidationError([{ keyword: 'required', instancePath: '', params: { missingProperty: 'root' } }], { args: {}, schema, example: true });
    expect(missing).toContain('<example>{"root":{"size":1}}</example>');
  });

  it('takes a $ref it cannot follow (a malformed escape, a prototype member, an anchor) as no schema, never a crash', () => {
    for (const ref of ['#/%', '#/%E0%A4%A', '#/__proto__', '#/constructor/name', '#anchor']) {
      const schema = { type: 'object', properties: { size: { $ref: ref } }, required: ['size'] };
      const out = formatValidationError([{ keyword: 'required', instancePath: '', params: { missingProperty: 'size' } }], { args: {}, schema, example: true });
      expect(field(out, 'size'), ref).toBe('Missing.');
    }
  });

  it('is deterministic and handles an empty issue list', () => {
    const issues = zodUser.safeParse(badArgs).error!.issues;
    const once = formatValidationError(issues, { args: badArgs, schema: userSchema, example: true });
    expect(formatValidationError(issues, { args: badArgs, schema: userSchema, example: true })).toBe(once);
    expect(formatValidationError([], {})).toBe('<validation_error>\n<field name="(root)">The arguments were rejected.</field>\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>');
  });
});

describe('unions of primitives', () => {
  it('names every accepted type, from the schema or from the nested zod issues', () => {
    const s = z.object({ u: z.union([z.string(), z.number()]) });
    const args = { u: true };
    const issues = s.safeParse(args).error!.issues;
    expect(field(formatValidationError(issues, { args, schema: z.toJSONSchema(s) }), 'u')).toBe('Matches none of the allowed shapes. You sent: true. Expected: string or number.');
    expect(field(formatValidationError(issues, { args }), 'u')).toBe('Matches none of the allowed shapes. You sent: true. Expected: string | number.');
  });
});

describe('example edge cases', () => {
  it('leaves out an empty example (every field optional)', () => {
    const schema = { type: 'object', properties: { status: { type: 'string', enum: ['open', 'shipped'] } } };
    const args = { status: 'cancelled' };
    const out = formatValidationError([{ keyword: 'enum', instancePath: '/status', params: { allowedValues: ['open', 'shipped'] } }], { args, schema, example: true });
    expect(out).not.toContain('<example>');
    expect(field(out, 'status')).toBe('Not an allowed value. You sent: "cancelled". Expected: string, one of "open", "shipped".');
  });

  it('builds no example string longer than is worth showing, so a pattern never runs on a huge one', () => {
    // A backtracking pattern on ten million characters would not finish; the example is simply left out.
    const schema = { type: 'object', properties: { code: { type: 'string', minLength: 10_000_000, pattern: '^(\\w+)+!$' } }, required: ['code'] };
    const out = formatValidationError([{ keyword: 'required', instancePath: '', params: { missingProperty: 'code' } }], { args: {}, schema, example: true });
    expect(out).not.toContain('<example>');
    expect(field(out, 'code')).toContain('Missing.');
  });
});

describe('unions in arrays', () => {
  const schema = {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: {
          oneOf: [
            { type: 'object', properties: { type: { const: 'card' }, cvc: { type: 'string' } }, required: ['type', 'cvc'] },
            { type: 'object', properties: { type: { const: 'bank' }, iban: { type: 'string' } }, required: ['type', 'iban'] },
          ],
        },
      },
    },
  };
  const validate = new Ajv({ allErrors: true }).compile(schema);
  const errorsFor = (args: unknown) => (validate(args) ? [] : [...(validate.errors ?? [])]);

  it('each item is explained by the branch it picks, not by the branch another item picked', () => {
    const args = { items: [{ type: 'card' }, { type: 'bank' }] };
    const out = formatValidationError(errorsFor(args), { args, schema, example: false });
    expect(field(out, 'items[0].cvc')).toContain('Missing.');
    expect(field(out, 'items[1].iban')).toContain('Missing.');
    expect(out).not.toContain('items[1].cvc');
    expect(out).not.toContain('items[1].type');
  });

  it('thousands of failing union items are reported in linear time (each union used to filter every error)', async () => {
    const failing = (count: number) => {
      const args = { items: Array.from({ length: count }, () => ({ type: 'card' })) };
      return { args, errors: errorsFor(args) };
    };
    const inputs = { 1: failing(600), 10: failing(6_000) };
    expect(inputs[10].errors.length).toBeGreaterThanOrEqual(18_000);
    let out = '';
    // Quadratic, 8,000 items took about 20 s.
    await expectLinearTime('reporting failing union items', (scale) => (out = formatValidationError(inputs[scale].errors, { args: inputs[scale].args, schema, example: false })));
    expect(out).toContain('<field name="items[5999].cvc">');
  });
});

describe('the example sampler runs a schema\'s pattern in linear time, or not at all', () => {
  it('a catastrophic pattern is sampled at once (no candidate fits), a usual one gives its example, one RE2 refuses is never run', () => {
    // A backtracking engine spends hours on the candidate "a" padded to forty characters.
    expect(sampleString({ type: 'string', pattern: '^(a+)+c$', minLength: 40 })).toBeUndefined();
    expect(sampleString({ type: 'string', pattern: '^[A-Z]{3}$' })).toBe('ABC');
    expect(sampleString({ type: 'string', pattern: '^(?<word>[a-z]+)$' })).toBe('example');
    // A lookahead would accept "example": it is not run, so no example is claimed.
    expect(sampleString({ type: 'string', pattern: '^(?=e)\\w+$' })).toBeUndefined();
    expect(linearPattern('(a)\\1')).toEqual({ refused: 'a backreference has no linear-time match' });
  });
});
