export type * from './api-types.ts';
export type { ToolbusClientErrorOptions } from './client-error.ts';
export { ToolbusClientError } from './client-error.ts';
export type { SseEvent } from './sse-events.ts';
export { sseEvents } from './sse-events.ts';
export type { RequestOptions, ToolbusClientOptions } from './toolbus-client.ts';
export { ToolbusClient } from './toolbus-client.ts';
export type { TurnStreamOptions } from './turn-stream.ts';
export { sleepUnlessAborted, turnStream } from './turn-stream.ts';
