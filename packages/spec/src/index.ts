export type { ToolCallErrorOptions } from './errors/tool-call-error.ts';
export { ToolCallError } from './errors/tool-call-error.ts';
export type { ToolExecutionErrorOptions } from './errors/tool-execution-error.ts';
export { ToolExecutionError } from './errors/tool-execution-error.ts';
export type { ToolbusErrorOptions } from './errors/toolbus-error.ts';
export { hasErrorMarker, ToolbusError } from './errors/toolbus-error.ts';
