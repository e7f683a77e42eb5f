/**
 * The formats that cross a boundary: the report and artifact (the contract between the CI side
 * (diff, renderers, the Action) and the runtime inside a deployed server, which ship
 * separately), the usage recordings and summary, and the files one job of the Action hands
 * another (the review file, the capture file). This module owns their types, their readers with
 * caps (their checks in form.ts), their canonical order and canonical JSON, the XML escaping and
 * `<contract_deltas>` block, and the definition of a discriminated union. It imports nothing
 * else of the project, so the runtime can stand on it alone. Other folders import it through
 * this index; the CLI's argument parser and policy/checks.ts take the severities and the gate's
 * vocabularies from report.js and review.js directly, so that `--help` loads nothing more.
 */
export {
  ENTRY_KINDS,
  compareDeltas,
  compareText,
  REPORT_VERSION,
  SEMVER_BUMPS,
  SEVERITIES,
  SEVERITY_RANK,
  emptyReport,
  entryReports,
  isReleaseDate,
  maxSeverityOf,
  meetsThreshold,
  semverBumpOf,
  summaryOf,
  zeroCounts,
  type Delta,
  type DeltaUsage,
  type ReportUsage,
  type DeltaFacts,
  type DiffReport,
  type Direction,
  type EntryKind,
  type EntryReport,
  type Release,
  type SemverBump,
  type Severity,
} from './report.js';
export { canonicalJson, hasSortedKeys, isJsonObject, jsonEqual, markCanonical, nullPrototypeRecord, parseJson, sortedInPlace, sortedKeys, withSortedKeys, withoutByteOrderMark } from './json.js';
export { DEFAULT_READ_LIMITS, ReportFormatError, readReport, readReportText, type ReadLimits } from './read.js';
export {
  CHECK_MODES,
  FAIL_ON,
  HEAD_SOURCES,
  REVIEW_FILE_VERSION,
  REVIEW_VERDICTS,
  VERSION_CHECKS,
  type AcceptedChange,
  type Approval,
  type ApprovalCoverage,
  type CheckMode,
  type DecidedReview,
  type FailOn,
  type HeadSource,
  type ReleaseVerdict,
  type ReviewFile,
  type ReviewGate,
  type ReviewVerdict,
  type ServerReview,
  type VersionCheck,
} from './review.js';
export { REVIEW_FILE_CAPS, ReviewFileError, readReviewFile, readReviewFileText, renderReviewFile } from './review-file.js';
export {
  CAPTURE_FILE_CAPS,
  CAPTURE_FILE_NAME,
  CAPTURE_KIND,
  CAPTURE_VERSION,
  COMMAND_FILES,
  CaptureFileError,
  readCaptureFile,
  readCaptureFileText,
  renderCaptureFile,
  type CaptureFile,
  type CapturedServer,
  type CommandFile,
} from './capture-file.js';
export {
  displayJson,
  escapeAttr,
  escapeText,
  flaggedFieldsOf,
  listValues,
  renderContractDelta,
  renderContractDeltas,
  truncate,
} from './xml.js';
export { compactJson, deltaValue, quotes, textOf } from './values.js';
export {
  JSON_TYPES,
  discriminatorOf,
  discriminatorValue,
  argumentLabel,
  argumentLocationOf,
  isSubtype,
  jsonTypeName,
  jsonTypeOf,
  pointerTokens,
  typesOverlap,
  type ArgumentPath,
  type JsonType,
} from './schema.js';
export { entryRenameOf, flagsText, isSureRename, memberRemovalOf, memberRenameOf, removesEntry } from './delta-shape.js';
export { fieldOf, fieldSegments, whereOf } from './field-path.js';
export {
  MAX_RECORD_LENGTH,
  OTHER_VALUE,
  REFUSALS,
  USAGE_CAPS,
  USAGE_RECORD_FORMAT,
  USAGE_RECORD_VERSION,
  UsageRecordError,
  isCount,
  isDay,
  readUsageRecordLine,
  usageRecordLine,
  type Counts,
  type Refusal,
  type UsageDayRecord,
  type UsageRecord,
  type UsageServer,
  type UsageToolRecord,
} from './usage.js';
export {
  DEFAULT_UNUSED_DAYS,
  SUMMARY_CAPS,
  USAGE_SUMMARY_FORMAT,
  USAGE_SUMMARY_VERSION,
  UsageSummaryBuilder,
  UsageSummaryError,
  addDays,
  daysBetween,
  readUsageSummary,
  readUsageSummaryText,
  renderUsageSummary,
  type ToolUsage,
  type UsageSummary,
} from './usage-summary.js';
