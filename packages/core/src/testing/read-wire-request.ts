import { isPlainObject, toolNamePattern } from '@toolbus/spec';
import type { ScriptedMessage } from './scripted-turn.ts';

/** A chat request body (Chat Completions or Messages), read and checked like the real API does. */
export interface ReadRequest {
  readonly model: string | undefined;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  readonly toolNames: readonly string[];
  readonly messages: readonly ScriptedMessage[];
  /** The 400 message the real API would answer with, when the request is invalid. */
  readonly problem: string | undefined;
}

/** What every chat API's request body holds, as a wire dialect's own reading and checks get it. */
export interface WireRequestParts {
  readonly request: Record<string, unknown>;
  readonly rawMessages: readonly unknown[];
  readonly toolNames: readonly string[];
}

/** How one API's request differs: where a tool's name sits, what its messages are, and what it rejects. */
export interface WireRequestDialect {
  /** The name of one declared tool ('' when the entry has none). */
  toolName(tool: Record<string, unknown>): string;
  messages(parts: WireRequestParts): ScriptedMessage[];
  /** Whether the stream ends with a usage chunk. */
  includeUsage(request: Record<string, unknown>): boolean;
  /** The API's 400 message for an invalid request; undefined when the real API would accept it. */
  findProblem(parts: WireRequestParts): string | undefined;
}

/**
 * Reads a request body the way both wire APIs share (model, stream, messages and tools are where both put them,
 * anything else in the body is hostile until checked) and leaves the rest to the dialect.
 */
export function readWireRequest(body: unknown, dialect: WireRequestDialect): ReadRequest {
  const request = isPlainObject(body) ? body : {};
  const rawMessages = Array.isArray(request.messages) ? request.messages : [];
  const rawTools = Array.isArray(request.tools) ? request.tools : [];
  const toolNames = rawTools.map((tool) => (isPlainObject(tool) ? dialect.toolName(tool) : ''));
  const parts: WireRequestParts = { request, rawMessages, toolNames };
  return {
    model: typeof request.model === 'string' ? request.model : undefined,
    stream: request.stream === true,
    includeUsage: dialect.includeUsage(request),
    toolNames,
    messages: dialect.messages(parts),
    problem: dialect.findProblem(parts),
  };
}

/** The index of the first tool name both APIs refuse (`^[a-zA-Z0-9_-]{1,64}$`), or -1. */
export function invalidToolNameIndex(toolNames: readonly string[]): number {
  return toolNames.findIndex((name) => !toolNamePattern.test(name));
}

/** The text of a content field both APIs allow as a string or a list of parts (`{ type: 'text', text }` ...). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isPlainObject)
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .join('');
}
