import type {
  ApprovalResolution,
  CitedDocument,
  ElicitationResolution,
  Packet,
  PacketObject,
  StopReason,
} from '@toolbus/spec';
import { placementKey } from '@toolbus/spec';
import type { StoredPacket } from '@toolbus/storage';
import { UiMessageParts } from './ui-message-parts.ts';

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
  /**
   * A question a tool's MCP server asks the user mid-call (`POST /v1/chats/{chatId}/elicitations/{elicitationId}`
   * answers it): shown as it comes, and the same part (its id is the elicitation's) gets the `resolution`.
   */
  | {
      readonly type: typeof ELICITATION_CHUNK;
      readonly id: string;
      readonly data: ElicitationRequest & { readonly resolution?: ElicitationResolution };
    }
  | { readonly type: 'finish'; readonly finishReason: 'stop' | 'length' | 'error' | 'other' }
  | { readonly type: 'abort'; readonly reason?: string };

type ApprovalRequest = Extract<PacketObject, { type: 'approval-request' }>;

type ElicitationRequest = Extract<PacketObject, { type: 'elicitation-request' }>;

type CardResolved = Extract<PacketObject, { type: 'approval-resolved' | 'elicitation-resolved' }>;

/** The part of a card the user answers mid-turn: an approval or an elicitation. */
type CardChunk = Extract<UiMessageChunk, { type: typeof APPROVAL_CHUNK | typeof ELICITATION_CHUNK }>;

/** The data part type of an egress approval. */
export const APPROVAL_CHUNK = 'data-toolbus-approval';

/** The data part type of an MCP server's question to the user (elicitation). */
export const ELICITATION_CHUNK = 'data-toolbus-elicitation';

/** The data part type of an error the turn survived. */
export const NON_FATAL_ERROR_CHUNK = 'data-toolbus-error';

/** What a turn that failed without an error packet of its own tells useChat. */
const TURN_FAILED = 'The turn failed without saying why.';

/**
 * Translates a turn's packets into UI message chunks (see {@link UiMessageTranslator}), for a reader of the
 * packets' async iterable. The live writer (write-ui-message-stream.ts) uses the translator itself, synchronously.
 */
export async function* toUiMessageChunks(
  packets: AsyncIterable<StoredPacket>,
  messageId: string,
): AsyncGenerator<UiMessageChunk> {
  const translator = new UiMessageTranslator(messageId);
  yield translator.start();
  for await (const stored of packets) {
    yield* translator.push(stored);
    if (translator.finished) return;
  }
  yield* translator.end();
}

/**
 * Translates a turn's packets into UI message chunks, one packet at a time and synchronously: reasoning and answer
 * text become reasoning and text parts, each tool call an input and then, at its `tool-end`, an output (what the
 * model read, and the tool's own packets) or an error (the code's message the model was given), citations
 * sources; `stop` becomes `finish`, or `abort` when the user stopped the turn or the server died during it.
 *
 * An `error` packet of no open tool is the turn's own. useChat stops reading at an `error` chunk and shows its
 * error state, so only the error of a failed turn (the one its `stop` with reason `error` follows) becomes one; an
 * error the turn goes on after becomes a `data-toolbus-error` part. Which it is shows at the next packet, so it waits
 * for that one.
 */
export class UiMessageTranslator {
  readonly #messageId: string;
  readonly #parts = new UiMessageParts();
  /** The cards sent so far (approvals, elicitations), by `type:id`: a resolution goes out as its card again. */
  readonly #cards = new Map<string, CardChunk>();
  #turnError: { readonly code: string; readonly message: string } | undefined;
  #finished = false;

  constructor(messageId: string) {
    this.#messageId = messageId;
  }

  /** True once the turn's `stop` was translated: nothing follows it. */
  get finished(): boolean {
    return this.#finished;
  }

  /** The message's first chunk. */
  start(): UiMessageChunk {
    return { type: 'start', messageId: this.#messageId };
  }

  /** The chunks of one stored packet, in order (none after the stop). */
  *push(stored: StoredPacket): Generator<UiMessageChunk> {
    if (this.#finished) return;
    const parts = this.#parts;
    const { tools, toolsById, documents } = parts;
    const packet = stored.packet as Packet;
    const { obj } = packet;
    const key = placementKey(packet.placement);
    if (this.#turnError !== undefined && !(obj.type === 'stop' && obj.reason === 'error')) {
      // The part goes where the error came: text after it is a new part.
      yield* parts.closeText();
      yield { type: NON_FATAL_ERROR_CHUNK, data: this.#turnError };
      this.#turnError = undefined;
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
      return;
    }
    switch (obj.type) {
      case 'reasoning-start':
        yield* parts.contentStep();
        yield* parts.closeText();
        yield* parts.openReasoning(stored.sequence);
        break;
      case 'reasoning-delta': {
        (yield* parts.contentStep()).reasoning += obj.reasoning;
        const id = yield* parts.openReasoning(stored.sequence);
        yield { type: 'reasoning-delta', id, delta: obj.reasoning };
        break;
      }
      case 'reasoning-end':
        yield* parts.closeReasoning();
        break;
      case 'message-start':
        for (const document of obj.finalDocuments ?? []) documents.set(document.citationNumber, document);
        break;
      case 'message-delta': {
        yield* parts.contentStep();
        yield* parts.closeReasoning();
        const id = yield* parts.openText(stored.sequence);
        yield { type: 'text-delta', id, delta: obj.content };
        break;
      }
      case 'message-replace':
        yield* parts.redoStep(stored.sequence, obj.content);
        break;
      case 'citation-info': {
        const source = sourceChunk(obj, documents.get(obj.citationNumber));
        (yield* parts.contentStep()).sources.push(source);
        yield source;
        break;
      }
      case 'tool-start':
        yield* parts.openTool(key, {
          toolCallId: obj.toolCallId,
          toolName: obj.toolName,
          title: obj.displayName,
          input: obj.arguments ?? {},
        });
        break;
      case 'tool-end':
        yield* parts.endTool(key, obj);
        break;
      case 'error': {
        const tool = tools.get(key);
        if (tool) tool.errorText ??= obj.message;
        else this.#turnError = { code: obj.code, message: obj.message };
        break;
      }
      case 'section-end':
        yield* parts.closeToolSection(key);
        break;
      case 'stop': {
        this.#finished = true;
        yield* parts.closeAll();
        if (obj.reason === 'error')
          yield { type: 'error', errorText: this.#turnError?.message ?? TURN_FAILED };
        if (obj.reason === 'user-cancelled' || obj.reason === 'interrupted')
          yield { type: 'abort', reason: obj.reason };
        else yield { type: 'finish', finishReason: finishReasonOf(obj.reason) };
        return;
      }
      case 'approval-request':
      case 'elicitation-request':
        yield* this.#openCard(obj);
        break;
      case 'approval-resolved':
      case 'elicitation-resolved':
        yield* this.#resolveCard(obj);
        break;
      default: {
        if ('toolCallId' in obj) {
          if (obj.type === 'search-documents')
            for (const document of obj.documents) documents.set(document.citationNumber, document);
          toolsById.get(obj.toolCallId)?.events.push(obj);
        }
      }
    }
  }

  /** A card the user answers mid-turn: its part goes out now, and its tool call's output lists its request. */
  *#openCard(request: ApprovalRequest | ElicitationRequest): Generator<UiMessageChunk> {
    const card: CardChunk =
      request.type === 'approval-request'
        ? { type: APPROVAL_CHUNK, id: request.approvalId, data: request }
        : { type: ELICITATION_CHUNK, id: request.elicitationId, data: request };
    this.#cards.set(`${card.type}:${card.id}`, card);
    yield card;
    if (request.toolCallId !== undefined) this.#parts.toolsById.get(request.toolCallId)?.events.push(request);
  }

  /** The same part again (its id is the card's), now with the resolution; nothing for a card never sent. */
  *#resolveCard(resolved: CardResolved): Generator<UiMessageChunk> {
    const key =
      resolved.type === 'approval-resolved'
        ? `${APPROVAL_CHUNK}:${resolved.approvalId}`
        : `${ELICITATION_CHUNK}:${resolved.elicitationId}`;
    const card = this.#cards.get(key);
    // The resolution's kind follows the card's: an approval's resolved packet carries an approval's resolution.
    if (card !== undefined)
      yield { ...card, data: { ...card.data, resolution: resolved.resolution } } as CardChunk;
  }

  /**
   * The packets ended without a stop (the reader left): an error still held is not known to be the turn's end,
   * so it goes out as a data part.
   */
  *end(): Generator<UiMessageChunk> {
    if (this.#finished || this.#turnError === undefined) return;
    yield { type: NON_FATAL_ERROR_CHUNK, data: this.#turnError };
    this.#turnError = undefined;
  }
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

/** A citation's source part: a link when the document has one, else the document by title. */
function sourceChunk(
  citation: Extract<PacketObject, { type: 'citation-info' }>,
  document: CitedDocument | undefined,
): UiMessageChunk {
  const sourceId = `${citation.citationNumber}`;
  return document?.link
    ? { type: 'source-url', sourceId, url: document.link, title: document.title }
    : {
        type: 'source-document',
        sourceId,
        mediaType: 'text/plain',
        title: document?.title ?? citation.documentId,
      };
}
