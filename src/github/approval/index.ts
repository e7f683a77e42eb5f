/**
 * The approval label, read from GitHub (whether it is on the pull request, whether who added
 * it may write), and the record of what it covers, kept in this Action's own comment. The
 * rules are policy/approval.ts and policy/coverage.ts; this is their I/O.
 */
export { approvalOf, approvalRecordsOf, coveragesOf, recordsOf, senderOf, type LabelState } from './label.js';
export { renderApprovalRecord, withApprovalRecord } from './record.js';
