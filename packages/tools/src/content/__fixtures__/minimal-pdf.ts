export { minimalPdf } from '../../testing/minimal-pdf.ts';
