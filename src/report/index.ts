/**
 * Renderers of a `DiffReport`. They only read deltas: every judgement was made by the diff
 * engine, so all formats always agree.
 */
export { renderJson, renderArtifact, validateArtifact } from './artifact.js';
export { renderText, type TextOptions } from './text.js';
export { renderMarkdown, type MarkdownOptions } from './markdown.js';
export { renderXml, type XmlOptions } from './xml.js';
export { renderSarif, type SarifOptions } from './sarif.js';
