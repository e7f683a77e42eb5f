/**
 * The JSON report and the frozen delta artifact. Both are the fixed `DiffReport` shape in
 * canonical JSON (sorted keys, 2-space indent, trailing newline): same report, same bytes.
 * The artifact is checked with the protocol's strict reader before it is written, so a
 * deployed runtime never loads a file this tool produced wrongly.
 */
import { UserError } from '../errors.js';
import { ReportFormatError, canonicalJson, readReport, type DiffReport } from '../protocol/index.js';
import { isRuleKind } from '../rules/index.js';

export function renderJson(report: DiffReport): string {
  return canonicalJson(report, true);
}

/** The artifact's bytes; throws (before anything is written) when the report is not valid. */
export function renderArtifact(report: DiffReport): string {
  validateArtifact(report);
  return canonicalJson(report, true);
}

/** Read `data` strictly as a report of this version; a `UserError` lists what is wrong. */
export function validateArtifact(data: unknown): DiffReport {
  try {
    return readReport(data, 'strict', isRuleKind);
  } catch (error) {
    if (error instanceof ReportFormatError) throw new UserError(`The delta artifact is not valid:\n${error.problems.map((p) => `  - ${p}`).join('\n')}`);
    throw error;
  }
}
