/** Why a scripted turn ends, in provider-neutral words (written in each wire format's own terms). */
export type ScriptedFinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter';

/**
 * One step of a scripted model turn. Steps are plain JSON, so a script can live in a file. Text and reasoning
 * steps are single chunks (split a text over several steps to test chunking); `tool-call` is a shorthand for a
 * start followed by argument deltas.
 */
export type ScriptedStep =
  /** One content chunk (OpenAI `delta.content`; Anthropic `text_delta`). Text tool calls are just text. */
  | { readonly type: 'text'; readonly text: string }
  /** One reasoning chunk (OpenAI-compatible `delta.reasoning_content`; Anthropic `thinking_delta`). */
  | { readonly type: 'reasoning'; readonly text: string }
  /** A native tool call begins: its id and name, no arguments yet. */
  | { readonly type: 'tool-call-start'; readonly index: number; readonly id: string; readonly name: string }
  /** A piece of a native tool call's argument JSON, split anywhere. */
  | { readonly type: 'tool-call-delta'; readonly index: number; readonly argumentsDelta: string }
  /** A whole native tool call; `arguments` (an object is serialised) is cut into `chunkSize` pieces. */
  | {
      readonly type: 'tool-call';
      readonly id: string;
      readonly name: string;
      readonly arguments: string | { readonly [key: string]: unknown };
      readonly index?: number;
      readonly chunkSize?: number;
    }
  /** Waits before the next step (before the first data step, the response headers wait too). */
  | { readonly type: 'delay'; readonly ms: number }
  /** Answers with this HTTP status and the provider's error body. Only before any data was sent. */
  | { readonly type: 'http-error'; readonly status: number; readonly message?: string }
  /** Destroys the connection here, without ending the response. */
  | { readonly type: 'drop' }
  /** Writes these bytes into the response as they are (malformed SSE, comments, foreign events). */
  | { readonly type: 'raw'; readonly data: string }
  /** Ends the turn; without it the server ends with `tool-calls` if the turn made any, else `stop`. */
  | {
      readonly type: 'finish';
      readonly reason?: ScriptedFinishReason;
      readonly usage?: { readonly inputTokens?: number; readonly outputTokens?: number };
    };

/** A message of the request, in neutral form, for matchers and assertions. */
export interface ScriptedMessage {
  /** `tool` for OpenAI tool messages and for Anthropic user messages made of `tool_result` blocks. */
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly text: string;
  readonly toolCalls: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
  readonly toolResults: readonly { readonly toolCallId: string; readonly content: string }[];
}

/** What the server outcome of a request was. */
export type ScriptedRequestOutcome =
  | 'pending'
  | 'completed'
  | 'client-closed'
  | 'dropped'
  | 'http-error'
  | 'rejected';

/** A request the server received, as recorded (header NAMES only; values may be keys). */
export interface ScriptedRequest {
  readonly api: 'openai-chat' | 'anthropic-messages';
  readonly path: string;
  readonly headerNames: readonly string[];
  readonly body: unknown;
  readonly stream: boolean;
  readonly model: string | undefined;
  readonly toolNames: readonly string[];
  readonly messages: readonly ScriptedMessage[];
  readonly lastMessage: ScriptedMessage | undefined;
  /** Index (in the script) of the turn that answered, when one did. */
  turnIndex: number | undefined;
  outcome: ScriptedRequestOutcome;
  /** Why the server refused the request (validation, assertion, no turn left), when it did. */
  rejection: string | undefined;
}

/** Chooses a turn by the request: a predicate, or declarative checks that must all hold. */
export type ScriptedTurnMatcher =
  | ((request: ScriptedRequest) => boolean)
  | {
      readonly lastMessageIncludes?: string;
      readonly lastRole?: ScriptedMessage['role'];
      readonly api?: ScriptedRequest['api'];
      readonly model?: string;
      readonly hasTool?: string;
    };

/** One model answer. */
export interface ScriptedTurn {
  readonly steps: readonly ScriptedStep[];
  /** When given, the turn only answers requests it matches; otherwise turns answer in order. */
  readonly match?: ScriptedTurnMatcher;
  /** Keep answering with this turn instead of using it up. */
  readonly repeat?: boolean;
  /** Checks what the client sent; a throw becomes a 400 answer and is recorded in `failures`. */
  readonly assert?: (request: ScriptedRequest) => void;
}

/** Cuts `text` into pieces of `size` characters (the last may be shorter). */
export function chunkText(text: string, size: number): string[] {
  const pieces: string[] = [];
  const step = Math.max(1, Math.floor(size));
  for (let start = 0; start < text.length; start += step) pieces.push(text.slice(start, start + step));
  return pieces;
}

/** Cuts `text` at the given positions (sorted, out-of-range ignored), e.g. to test every split point. */
export function splitTextAt(text: string, positions: readonly number[]): string[] {
  return piecesAt(
    text,
    positions.filter((position) => position > 0 && position < text.length),
  );
}

/**
 * Cuts `text` at arbitrary integers, each taken modulo the length + 1 (so any integer is a position), keeping the
 * empty piece a cut at either end gives: the fragments a property test feeds a streaming parser.
 */
export function cutText(text: string, cuts: readonly number[]): string[] {
  return piecesAt(
    text,
    cuts.map((cut) => cut % (text.length + 1)),
  );
}

function piecesAt(text: string, positions: readonly number[]): string[] {
  const pieces: string[] = [];
  let previous = 0;
  for (const position of [...new Set(positions)].sort((left, right) => left - right)) {
    pieces.push(text.slice(previous, position));
    previous = position;
  }
  pieces.push(text.slice(previous));
  return pieces;
}

/** Text steps, one per piece. */
export function textSteps(pieces: readonly string[]): ScriptedStep[] {
  return pieces.map((text) => ({ type: 'text', text }));
}
