/**
 * What the Action reads from and writes to the world around it, every input hostile: GitHub's
 * REST API and the sticky comment's marker, git objects and the trees of the base and the head,
 * the event and the inputs, workspace paths, the runner's command files, the step's log and
 * summary with credentials redacted, release tags, the files one job hands another (the
 * capture file, the review file) and the usage summaries.
 */
export { DEFAULT_RETRY, GitHubApi, isPermissionError, isTransient, retryPolicy, type RepoIssue } from './api.js';
export { checkoutTree, commitTree, repoPath, type Tree } from './baseline.js';
export { capturedContracts, parseCaptureFile } from './capture-file.js';
export { guardCommandFiles, tamperingMessage, type CommandFileGuard } from './command-files.js';
export { planEvent, type EventPlan, type PullRequestInfo, type RunContext } from './event.js';
export { readInputs, type ActionInputs } from './inputs.js';
export { readWorkspaceFile, writeOutputFile } from './paths.js';
export { releaseTagsOf, type ReleaseTags } from './release-tags.js';
export { log, redactor, registerCredentials, runnerOf, writeSummary, type Runner } from './step.js';
export { commentMarker, isOwn, markerValue, planComment } from './sticky.js';
export { readUsageInputs, type UsageRead } from './usage.js';
