/**
 * Writes a small, valid one-page PDF showing `lines` in Helvetica (none: a page without a text layer, as a scan),
 * with a correct cross-reference table, so tests exercise the real PDF.js text extraction on a file made in the
 * test. `brokenXref` points the table and `startxref` nowhere: PDF.js then warns and rebuilds it from the objects.
 */
export function minimalPdf(
  lines: readonly string[],
  title = 'Test PDF',
  options: { readonly brokenXref?: boolean } = {},
): Uint8Array {
  const escapePdfText = (text: string) => text.replace(/[\\()]/g, (character) => `\\${character}`);
  const content = [
    'BT',
    '/F1 12 Tf',
    '72 720 Td',
    '14 TL',
    ...lines.map((line) => `(${escapePdfText(line)}) '`),
    'ET',
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    `<< /Title (${escapePdfText(title)}) >>`,
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefAt = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets)
    body += `${String(options.brokenXref ? 999 : offset).padStart(10, '0')} 00000 n \n`;
  const startXref = options.brokenXref ? 99_999 : xrefAt;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${startXref}\n%%EOF\n`;
  return new TextEncoder().encode(body);
}
