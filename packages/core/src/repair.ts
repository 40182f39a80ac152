// "A model's answer stream in, the answer as a parser that worked would have returned it out", without the rest of
// core (`@toolbus/core/repair`): the answer repair and what chooses its dialects, for a process that only repairs
// answers (the recovery gateway), the reader of the SSE events the answer arrives in and the writer of the chunks
// it leaves in (both also on `@toolbus/core/node`). The root exports the repair's names; this subpath loads about
// half of core's modules (no turn loop, no providers, no tools), so such a process holds less code and fewer object
// shapes.

export { ChunkedBodyWriter } from './net/chunked-body-writer.ts';
export type { SseEvent } from './net/sse-event-reader.ts';
export { SseEventReader, sseData } from './net/sse-event-reader.ts';
export * from './repair-names.ts';
export { roughTokenCount } from './rough-token-count.ts';
