// `@toolbus/tools/testing`: the document index conformance suite every index backend runs (node:test).
export type { DocumentIndexUnderTest } from './describe-document-index-conformance.ts';
export { describeDocumentIndexConformance } from './describe-document-index-conformance.ts';
export { minimalPdf } from './minimal-pdf.ts';
