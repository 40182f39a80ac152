const mediaTypes: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  webp: 'image/webp',
  pdf: 'application/pdf',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  txt: 'text/plain',
  md: 'text/markdown',
  json: 'application/json',
  html: 'text/html',
  xml: 'application/xml',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xls: 'application/vnd.ms-excel',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  zip: 'application/zip',
  parquet: 'application/vnd.apache.parquet',
  py: 'text/x-python',
};

/** The media type for a generated file's extension; `application/octet-stream` when unknown. */
export function guessMediaType(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot >= 0 && mediaTypes[name.slice(dot + 1).toLowerCase()]) || 'application/octet-stream';
}
