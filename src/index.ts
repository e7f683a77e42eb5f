/**
 * mcp-contract-guard as a library: the pipeline the CLI and the Action are built from.
 *
 *   compileContracts(source) → Contracts → renderLockfile / parseLockfile
 *                                        → diffContracts(previous, current) → DiffReport → render*
 *
 * The runtime (validation-error enrichment inside a server) is the separate, dependency-light
 * entry point `mcp-contract-guard/runtime`.
 */
export {
  CompileError,
  DEFAULT_TIMEOUT_MS,
  HealingFailedError,
  compileContracts,
  diagnose,
  proposeFix,
  sourceFlags,
  splitCommand,
  type Attempt,
  type Compiled,
  type CompileOptions,
  type ContractSource,
  type Diagnosis,
  type FailureCategory,
  type HealingReport,
  type ServerSource,
} from './compile/index.js';
export { normalizeCapture, normalizeTool, ANNOTATION_DEFAULTS, EXECUTION_DEFAULTS } from './contract/normalize.js';
export { normalizeSchema } from './contract/schema.js';
export { digestOf } from './contract/canonical.js';
export { LOCKFILE_NAME, LOCKFILE_VERSION, LockfileError, entryDigest, parseLockfile, renderLockfile } from './contract/lockfile.js';
export { compareContracts, hasChanges, type ContractChanges } from './contract/compare.js';
export { ENTRY_KINDS, type ContractEntry, type Contracts, type EntryKind, type JsonSchema, type RawCapture } from './contract/model.js';
export { CONFIG_NAME, findConfig, loadConfig, selectTargets, type AllowEntry, type Config, type Target } from './config.js';
export { diffContracts, fingerprintOf, type DiffOptions } from './diff/index.js';
export { RULES, RULE_KINDS, classify, renderSeverityTable, type Rule, type RuleKind, type SeverityOverrides } from './rules/index.js';
export {
  REPORT_VERSION,
  canonicalJson,
  SEVERITIES,
  SEVERITY_RANK,
  maxSeverityOf,
  meetsThreshold,
  readReport,
  renderContractDeltas,
  semverBumpOf,
  type Delta,
  type DiffReport,
  type Direction,
  type EntryReport,
  type SemverBump,
  type Severity,
} from './protocol/index.js';
export {
  renderArtifact,
  renderJson,
  renderMarkdown,
  renderSarif,
  renderText,
  renderXml,
  validateArtifact,
} from './report/index.js';
export { UserError } from './errors.js';
