/**
 * `mcp-contract-guard/runtime`: what a deployed MCP server (or agent) loads. Kept small and
 * dependency-light: it imports nothing of the CLI, the differ or GitHub, and nothing of the MCP
 * SDK at load time (the McpServer integration lazily loads one SDK module, only once a
 * validation error has to be explained). All work on the request path is string splicing over
 * data prepared at start-up.
 */
export { DeltaArtifactError, loadDeltaMap, type DeltaMap, type LoadDeltaMapOptions, type ToolDeltas } from './delta-map.js';
export {
  createToolEnhancer,
  enrichValidationError,
  identityEnhancer,
  type SelfHealingConfig,
  type SelfHealingResult,
  type ToolEnhancer,
} from './self-healing.js';
export { error, errorResult, required, toolError, type ToolErrorOptions, type ToolErrorResult } from './protocol.js';
export {
  formatValidationError,
  type AjvErrorLike,
  type FormatValidationErrorOptions,
  type ValidationIssue,
  type ZodIssueLike,
} from './validation-error.js';
export { withSelfHealing, type McpServerLike, type WithSelfHealingOptions } from './mcp-server.js';
export { UsageRecorder, createUsageRecorder, type CallOutcome, type MeterLike, type UsageRecorderOptions } from './usage.js';
export { NOTICE_META_KEY, type RenameMode, type RoutingOptions } from './routing.js';
export {
  callWithSelfHealing,
  correctedCall,
  isSecurityErrorText,
  isUnknownToolErrorText,
  isValidationErrorText,
  SelfHealingError,
  type CallWithSelfHealingOptions,
  type CorrectedCall,
  type Correction,
  type CorrectionRequest,
  type HealingAttempt,
  type SelfHealingFailure,
  type ToolCaller,
  type ToolCallResultLike,
} from './retry.js';
export type { Delta, Release, Severity } from '../protocol/index.js';
