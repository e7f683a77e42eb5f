import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { error, errorResult, required, toolError } from '../../src/runtime/index.js';

const textOf = (result: { content: [{ text: string }] }) => result.content[0].text;

describe('XML error protocol', () => {
  it('error(): a bare <tool_error> with the message escaped', () => {
    const result = error('Project "a<b>&c" not found');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('<tool_error>\n<message>Project "a&lt;b>&amp;c" not found</message>\n</tool_error>');
  });

  it('required(): MISSING_REQUIRED_FIELD with a recovery step', () => {
    expect(textOf(required('workspace_id'))).toBe(
      '<tool_error code="MISSING_REQUIRED_FIELD">\n<message>Required field "workspace_id" is missing.</message>\n<recovery>Provide the "workspace_id" parameter and retry.</recovery>\n</tool_error>',
    );
  });

  it('toolError(): code, message, recovery, available actions, retry_after and details, in that order', () => {
    const result = toolError('ProjectNotFound', {
      message: "Project 'proj_xyz' does not exist.",
      suggestion: 'Call projects.list first to get valid IDs, then retry.',
      availableActions: ['projects.list', 'projects.search'],
      retryAfter: 30,
      details: { projectId: 'proj_xyz', tried: [1, 2], '<k>': '<v>' },
    });
    expect(textOf(result)).toBe(
      [
        '<tool_error code="ProjectNotFound">',
        "<message>Project 'proj_xyz' does not exist.</message>",
        '<recovery>Call projects.list first to get valid IDs, then retry.</recovery>',
        '<available_actions>projects.list, projects.search</available_actions>',
        '<retry_after seconds="30">Wait 30 seconds before calling again.</retry_after>',
        '<details>',
        '<detail key="projectId">proj_xyz</detail>',
        '<detail key="tried">[1,2]</detail>',
        '<detail key="&lt;k&gt;">&lt;v></detail>',
        '</details>',
        '</tool_error>',
      ].join('\n'),
    );
  });

  it('toolError() minimal: only code and message', () => {
    expect(textOf(toolError('RateLimited', { message: 'Too many requests.' }))).toBe('<tool_error code="RateLimited">\n<message>Too many requests.</message>\n</tool_error>');
  });

  it('escapes a hostile code attribute', () => {
    expect(textOf(toolError('"><x>', { message: 'm' }))).toContain('<tool_error code="&quot;&gt;&lt;x&gt;">');
  });

  it('rejects a negative or non-finite retryAfter', () => {
    expect(() => toolError('X', { message: 'm', retryAfter: -1 })).toThrow(RangeError);
    expect(() => toolError('X', { message: 'm', retryAfter: Number.NaN })).toThrow(RangeError);
  });

  it('returns valid MCP CallToolResults with isError: true', () => {
    for (const result of [error('x'), required('y'), toolError('Z', { message: 'z' }), errorResult('t')]) {
      const typed: CallToolResult = result;
      expect(CallToolResultSchema.parse(typed)).toEqual(result);
      expect(result.isError).toBe(true);
    }
  });
});
