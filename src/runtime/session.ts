/**
 * The part of `withSelfHealing` that explains (loaded on the first call to explain, off the
 * import path of `mcp-contract-guard/runtime`): reading the SDK's error, and checking the
 * arguments against the input schema the server lists, with the proxy's validator, so that a
 * TypeScript server says what the proxy says of the same call, whatever its zod version.
 */
import { ArgumentValidator } from './argument-validator.js';
import type { ListedTools } from './routing.js';
import type { CallDecision } from './routing.js';
import type { Explainer } from './self-healing.js';
import { explainServerError, isUnknownToolError, serverValidationIssues } from './server-errors.js';

/** A `tools/call` as it came in (after routing: the tool and arguments the server was given). */
export interface CallSeen {
  readonly name: string;
  readonly args: unknown;
}

export class CallExplanations {
  private readonly validator = new ArgumentValidator();

  /** Whether the SDK's failure `text` of `call` is one to explain: it then needs the listing. */
  explainable(explainer: Explainer, call: CallSeen, text: string): boolean {
    const moved = explainer.movedTool(call.name) !== undefined && isUnknownToolError(call.name, text);
    return moved || (explainer.explains(call.name) && serverValidationIssues(call.name, text) !== undefined);
  }

  /**
   * The explanation of the SDK's failure of `call`, or undefined when it is not one to
   * explain: an input-validation failure of a tool the explainer explains (what the listed
   * schema finds wrong first, the SDK's own issues when it finds nothing), or "not found" for a
   * tool the artifact says moved and the server no longer lists.
   */
  failure(explainer: Explainer, call: CallSeen, text: string, tools: ListedTools | undefined): string | undefined {
    const schema = tools?.inputSchemaOf(call.name);
    return explainServerError(explainer, call.name, text, {
      schema,
      args: call.args,
      listed: tools?.has(call.name),
      contractIssues: () => (schema === undefined ? [] : this.validator.errors(call.name, schema, call.args)),
    })?.text;
  }

  /** The explanation of a call refused for its old-shaped arguments, with what else the listed schema finds wrong. */
  refusal(explainer: Explainer, refusal: Extract<CallDecision, { kind: 'refuse' }>, tools: ListedTools | undefined): string {
    const schema = tools?.inputSchemaOf(refusal.name);
    return explainer.refusedCall(refusal, schema, schema === undefined ? [] : this.validator.errors(refusal.name, schema, refusal.args));
  }
}
