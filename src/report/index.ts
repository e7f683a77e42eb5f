/**
 * Renderers of a `DiffReport`. They only read deltas: every judgement was made by the diff
 * engine, so all formats always agree.
 */
export { renderJson, renderArtifact, validateArtifact } from './artifact.js';
export { renderText, type TextOptions } from './text.js';
export {
  BADGES,
  DETAIL_LEVELS,
  partialNote,
  renderDetails,
  renderDigest,
  renderMarkdown,
  truncateMarkdown,
  type DetailLevel,
  type MarkdownOptions,
} from './markdown.js';
export { renderXml, type XmlOptions } from './xml.js';
export { renderSarif, type SarifOptions } from './sarif.js';
/** Escaping for the exact place a string lands: what the Action writes around a report uses it too. */
export { mdCell, mdCode, mdCodeBlock, mdText, terminalText, truncate } from './escape.js';
