/**
 * What the Action shows people, from a review: the sticky comment (and the watch's issue), the
 * job summary and the step's outputs, the annotations, the commands that reproduce a review on a
 * laptop. Every string from the pull request or a server is escaped for where it lands.
 */
export { entryAnnotations, selectAnnotations, type Annotation } from './annotations.js';
export { COMMENT_LIMIT, SUMMARY_LIMIT, renderComment, renderDriftReview, renderFailedReview, renderQuietComment, runLink, whatWentWrong } from './comment.js';
export { lockCommand, reproduceCommands, type CliSelection } from './reproduce.js';
export { computeOutputs, renderSummary } from './summary.js';
