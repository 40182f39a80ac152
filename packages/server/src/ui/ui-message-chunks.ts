import type { ApprovalResolution, CitedDocument, Packet, PacketObject, StopReason } from '@toolbus/spec';
import { omitUndefined, placementKey } from '@toolbus/spec';
import type { StoredPacket } from '@toolbus/storage';

/**
 * One chunk of the AI SDK's UI message stream protocol (v1), as `useChat` reads it. Only the chunk types toolbus
 * produces are listed; the protocol is the AI SDK's, so the fields follow its names.
 */
export type UiMessageChunk =
  | { readonly type: 'start'; readonly messageId: string }
  | { readonly type: 'start-step' | 'finish-step' | 'reset-step' }
  | { readonly type: 'text-start' | 'text-end' | 'reasoning-start' | 'reasoning-end'; readonly id: string }
  | { readonly type: 'text-delta' | 'reasoning-delta'; readonly id: string; readonly delta: string }
  | {
      readonly type: 'tool-input-start';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly title?: string;
    }
  | {
      readonly type: 'tool-input-available';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: unknown;
    }
  | { readonly type: 'tool-output-available'; readonly toolCallId: string; readonly output: unknown }
  | { readonly type: 'tool-output-error'; readonly toolCallId: string; readonly errorText: string }
  | { readonly type: 'source-url'; readonly sourceId: string; readonly url: string; readonly title?: string }
  | {
      readonly type: 'source-document';
      readonly sourceId: string;
      readonly mediaType: string;
      readonly title: string;
    }
  /** Ends useChat's reading: its status becomes `error` with this text. Sent only for a turn that failed. */
  | { readonly type: 'error'; readonly errorText: string }
  /**
   * A failure the turn survived (not a tool's: that is `tool-output-error`): a data part, which useChat appends to
   * the message and reads past (`dataPartSchemas['toolbus-error']` may check it).
   */
  | {
      readonly type: typeof NON_FATAL_ERROR_CHUNK;
      readonly data: { readonly code: string; readonly message: string };
    }
  /**
   * An egress approval the chat's owner must decide (`POST /v1/approvals/{approvalId}`) while the tool waits: shown
   * as it comes, and the same part (its id is the approval's) gets the `resolution` when it is decided.
   */
  | {
      readonly type: typeof APPROVAL_CHUNK;
      readonly id: string;
      readonly data: ApprovalRequest & { readonly resolution?: ApprovalResolution };
    }
  | { readonly type: 'finish'; readonly finishReason: 'stop' | 'length' | 'error' | 'other' }
  | { readonly type: 'abort'; readonly reason?: string };

type ApprovalRequest = Extract<PacketObject, { type: 'approval-request' }>;

/** The data part type of an egress approval. */
export const APPROVAL_CHUNK = 'data-toolbus-approval';

/** The data part type of an error the turn survived. */
export const NON_FATAL_ERROR_CHUNK = 'data-toolbus-error';

/** What a turn that failed without an error packet of its own tells useChat. */
const TURN_FAILED = 'The turn failed without saying why.';

interface OpenTool {
  readonly toolCallId: string;
  readonly events: unknown[];
  /** Its output or error chunk is out. */
  answered: boolean;
  /** The message of an `error` packet at the call, for a turn stored before `tool-end` existed. */
  errorText?: string;
}

/**
 * Translates a turn's packets into UI message chunks: reasoning and answer text become reasoning and text parts,
 * each tool call an input and then, at its `tool-end`, an output (what the model read, and the tool's own packets)
 * or an error (the code's message the model was given), citations sources; `stop` becomes `finish`, or `abort` when the user stopped the turn or the server died during it.
 *
 * An `error` packet of no open tool is the turn's own. useChat stops reading at an `error` chunk and shows its
 * error state, so only the error of a failed turn (the one its `stop` with reason `error` follows) becomes one; an
 * error the turn goes on after becomes a `data-toolbus-error` part. Which it is shows at the next packet, so it waits
 * for that one.
 */
export async function* toUiMessageChunks(
  packets: AsyncIterable<StoredPacket>,
  messageId: string,
): AsyncGenerator<UiMessageChunk> {
  yield { type: 'start', messageId };
  let text: string | undefined;
  let reasoning: string | undefined;
  const tools = new Map<string, OpenTool>();
  const toolsById = new Map<string, OpenTool>();
  const documents = new Map<number, CitedDocument>();
  const closeText = function* (): Generator<UiMessageChunk> {
    if (text !== undefined) yield { type: 'text-end', id: text };
    text = undefined;
  };
  const closeReasoning = function* (): Generator<UiMessageChunk> {
    if (reasoning !== undefined) yield { type: 'reasoning-end', id: reasoning };
    reasoning = undefined;
  };
  // One model cycle is one UI step: its reasoning and text, then its tool calls (`start-step` … `finish-step`, as
  // streamText sends). A `message-replace` (the text held tool calls) redoes the step: `reset-step` drops its parts,
  // and its reasoning, sources and the replaced text are sent again.
  let step: { hasTools: boolean; reasoning: string; sources: UiMessageChunk[] } | undefined;
  const closeStep = function* (): Generator<UiMessageChunk> {
    yield* closeText();
    yield* closeReasoning();
    if (step !== undefined) yield { type: 'finish-step' };
    step = undefined;
  };
  /** The step content goes in: a new one after the tool calls of the last. */
  const contentStep = function* (): Generator<UiMessageChunk, NonNullable<typeof step>> {
    if (step?.hasTools) yield* closeStep();
    if (step === undefined) {
      step = { hasTools: false, reasoning: '', sources: [] };
      yield { type: 'start-step' };
    }
    return step;
  };
  /** A tool call's part: its input now; its output or error when it ends. */
  const openTool = function* (
    key: string,
    toolCallId: string,
    toolName: string,
    title: string,
    input: unknown,
  ): Generator<UiMessageChunk, OpenTool> {
    yield* closeText();
    yield* closeReasoning();
    if (step === undefined) yield { type: 'start-step' };
    step = { ...(step ?? { reasoning: '', sources: [] }), hasTools: true };
    const tool: OpenTool = { toolCallId, events: [], answered: false };
    tools.set(key, tool);
    toolsById.set(toolCallId, tool);
    yield { type: 'tool-input-start', toolCallId, toolName, title };
    yield { type: 'tool-input-available', toolCallId, toolName, input };
    return tool;
  };
  let turnError: { readonly code: string; readonly message: string } | undefined;
  const approvals = new Map<string, ApprovalRequest>();
  for await (const stored of packets) {
    const packet = stored.packet as Packet;
    const { obj } = packet;
    const key = placementKey(packet.placement);
    if (turnError !== undefined && !(obj.type === 'stop' && obj.reason === 'error')) {
      // The part goes where the error came: text after it is a new part.
      yield* closeText();
      yield { type: NON_FATAL_ERROR_CHUNK, data: turnError };
      turnError = undefined;
    }
    if (
      packet.placement.path?.length &&
      subAgentOwn.has(obj.type) &&
      !(obj.type === 'error' && tools.has(key))
    ) {
      // A sub-agent's own thinking, text and failures (a research agent, the coding agent) belong to the tool
      // call that runs it, not to the answer: as the answer's text or a stream error, they would interleave with
      // it, or put useChat in its error state for a failure the turn survives.
      const parent = tools.get(placementKey({ turn: packet.placement.turn, tab: packet.placement.tab }));
      parent?.events.push(obj);
      continue;
    }
    switch (obj.type) {
      case 'reasoning-start':
        yield* contentStep();
        yield* closeText();
        if (reasoning === undefined) {
          reasoning = `reasoning-${stored.sequence}`;
          yield { type: 'reasoning-start', id: reasoning };
        }
        break;
      case 'reasoning-delta':
        (yield* contentStep()).reasoning += obj.reasoning;
        if (reasoning === undefined) {
          reasoning = `reasoning-${stored.sequence}`;
          yield { type: 'reasoning-start', id: reasoning };
        }
        yield { type: 'reasoning-delta', id: reasoning, delta: obj.reasoning };
        break;
      case 'reasoning-end':
        yield* closeReasoning();
        break;
      case 'message-start':
        for (const document of obj.finalDocuments ?? []) documents.set(document.citationNumber, document);
        break;
      case 'message-delta':
        yield* contentStep();
        yield* closeReasoning();
        if (text === undefined) {
          text = `text-${stored.sequence}`;
          yield { type: 'text-start', id: text };
        }
        yield { type: 'text-delta', id: text, delta: obj.content };
        break;
      case 'message-replace': {
        // Only a step without tool calls yet is redone: recovery replaces the text before its calls start.
        if (step === undefined || step.hasTools) break;
        const redone = step;
        yield { type: 'reset-step' };
        text = undefined;
        reasoning = undefined;
        if (redone.reasoning) {
          const id = `reasoning-${stored.sequence}`;
          yield { type: 'reasoning-start', id };
          yield { type: 'reasoning-delta', id, delta: redone.reasoning };
          yield { type: 'reasoning-end', id };
        }
        yield* redone.sources;
        if (obj.content) {
          text = `text-${stored.sequence}`;
          yield { type: 'text-start', id: text };
          yield { type: 'text-delta', id: text, delta: obj.content };
        }
        break;
      }
      case 'citation-info': {
        const document = documents.get(obj.citationNumber);
        const sourceId = `${obj.citationNumber}`;
        const source: UiMessageChunk = document?.link
          ? { type: 'source-url', sourceId, url: document.link, title: document.title }
          : {
              type: 'source-document',
              sourceId,
              mediaType: 'text/plain',
              title: document?.title ?? obj.documentId,
            };
        (yield* contentStep()).sources.push(source);
        yield source;
        break;
      }
      case 'tool-start':
        yield* openTool(key, obj.toolCallId, obj.toolName, obj.displayName, obj.arguments ?? {});
        break;
      case 'tool-end': {
        // A call answered without running (an unknown tool, one over the cap, one merged into another) has no
        // tool-start: its part opens here, so every call the model made shows how it ended.
        let tool = toolsById.get(obj.toolCallId);
        if (tool === undefined) tool = yield* openTool(key, obj.toolCallId, obj.toolName, obj.toolName, {});
        if (tool.answered) break;
        tool.answered = true;
        yield obj.error === undefined
          ? {
              type: 'tool-output-available',
              toolCallId: obj.toolCallId,
              output: {
                status: obj.status,
                result: obj.result ?? '',
                durationMs: obj.durationMs,
                ...omitUndefined({ mergedInto: obj.mergedInto }),
                events: tool.events,
              },
            }
          : { type: 'tool-output-error', toolCallId: obj.toolCallId, errorText: obj.error.message };
        break;
      }
      case 'error': {
        const tool = tools.get(key);
        if (tool) tool.errorText ??= obj.message;
        else turnError = { code: obj.code, message: obj.message };
        break;
      }
      case 'section-end': {
        const tool = tools.get(key);
        if (tool) {
          tools.delete(key);
          // A turn stored before tool-end existed: its section end is all there is.
          if (!tool.answered) {
            tool.answered = true;
            yield tool.errorText === undefined
              ? {
                  type: 'tool-output-available',
                  toolCallId: tool.toolCallId,
                  output: { events: tool.events },
                }
              : { type: 'tool-output-error', toolCallId: tool.toolCallId, errorText: tool.errorText };
          }
        }
        break;
      }
      case 'stop': {
        yield* closeText();
        yield* closeReasoning();
        for (const tool of tools.values()) {
          if (!tool.answered)
            yield {
              type: 'tool-output-error',
              toolCallId: tool.toolCallId,
              errorText: tool.errorText ?? 'The turn ended before this tool call finished.',
            };
        }
        tools.clear();
        yield* closeStep();
        if (obj.reason === 'error') yield { type: 'error', errorText: turnError?.message ?? TURN_FAILED };
        if (obj.reason === 'user-cancelled' || obj.reason === 'interrupted')
          yield { type: 'abort', reason: obj.reason };
        else yield { type: 'finish', finishReason: finishReasonOf(obj.reason) };
        return;
      }
      case 'approval-request':
        approvals.set(obj.approvalId, obj);
        yield { type: APPROVAL_CHUNK, id: obj.approvalId, data: obj };
        if (obj.toolCallId !== undefined) toolsById.get(obj.toolCallId)?.events.push(obj);
        break;
      case 'approval-resolved': {
        const request = approvals.get(obj.approvalId);
        if (request !== undefined)
          yield {
            type: APPROVAL_CHUNK,
            id: obj.approvalId,
            data: { ...request, resolution: obj.resolution },
          };
        break;
      }
      default: {
        if ('toolCallId' in obj) {
          if (obj.type === 'search-documents')
            for (const document of obj.documents) documents.set(document.citationNumber, document);
          toolsById.get(obj.toolCallId)?.events.push(obj);
        }
      }
    }
  }
  // The packets ended without a stop (the reader left): an error still held is not known to be the turn's end.
  if (turnError !== undefined) yield { type: NON_FATAL_ERROR_CHUNK, data: turnError };
}

/** The packet types a nested loop emits as its own (not a tool of its own): text, thinking, citations, errors. */
const subAgentOwn: ReadonlySet<Packet['obj']['type']> = new Set([
  'reasoning-start',
  'reasoning-delta',
  'reasoning-end',
  'message-start',
  'message-delta',
  'message-replace',
  'citation-info',
  'error',
]);

function finishReasonOf(reason: StopReason): 'stop' | 'length' | 'error' | 'other' {
  if (reason === 'error') return 'error';
  if (reason === 'cycle-limit') return 'length';
  return 'stop';
}
