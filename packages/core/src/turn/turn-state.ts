import type { ChatMessage, CitedDocument, Packet, Placement, StopReason, ToolbusError } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import {
  type CitationAllocatorOptions,
  createCitationAllocator,
  type TurnCitationAllocator,
} from '../citations/citation-allocator.ts';
import { CitationMarkerScanner } from '../citations/citation-marker-scanner.ts';
import type { PacketSink } from '../emitter/packet-sink.ts';
import type { ToolCallOutcome } from '../runner/tool-call-outcome.ts';
import { StepPlacement } from './step-placement.ts';

/** What a finished turn produced. */
export interface ChatTurnResult {
  /** The final answer, as the user saw it. */
  readonly answer: string;
  readonly stopReason: StopReason;
  /** The messages this turn added to the conversation (assistant tool calls, tool results, the answer). */
  readonly messages: readonly ChatMessage[];
  /** Documents cited in the answer, by number. */
  readonly citedDocuments: readonly CitedDocument[];
  /** Every document numbered during the turn. */
  readonly documents: ReadonlyMap<number, CitedDocument>;
  readonly toolOutcomes: readonly ToolCallOutcome[];
  readonly cycles: number;
  readonly recoveredToolCalls: number;
  readonly error?: ToolbusError;
}

/** A running turn: iterate it for packets; `result` settles when the turn ends (it never rejects). */
export interface ChatTurn extends AsyncIterable<Packet> {
  readonly result: Promise<ChatTurnResult>;
  /**
   * Instead of iterating (one or the other): each packet handed over as it is emitted, without a promise per
   * packet; resolves when the packet stream ends (see `Emitter.consume`). Absent where a turn only iterates.
   */
  readonly consume?: (onPacket: (packet: Packet) => void) => Promise<void>;
}

/** Options for {@link TurnState}. */
export interface TurnStateOptions {
  readonly sink: PacketSink;
  readonly messages: readonly ChatMessage[];
  readonly citations?: CitationAllocatorOptions;
  readonly parentPlacement?: Placement;
  readonly recoveryAttempts: number;
}

/**
 * What one turn accumulates across its cycles: the conversation sent to the model and the messages the turn
 * added, the citation numbering, the placement counter, the tool outcomes, the recovery budget and how the
 * turn ends. `finish` sends the `stop` packet and builds the result.
 */
export class TurnState {
  readonly sink: PacketSink;
  readonly placement: StepPlacement;
  readonly citations: TurnCitationAllocator;
  readonly announcedDocuments = new Set<string>();
  readonly conversation: ChatMessage[];
  readonly added: ChatMessage[] = [];
  readonly toolOutcomes: ToolCallOutcome[] = [];
  readonly userQuery: string;
  recoveryAttemptsLeft: number;
  recoveredToolCalls = 0;
  turn = 0;
  cycles = 0;
  answer = '';
  stopReason: StopReason = 'cycle-limit';
  error: ToolbusError | undefined;

  constructor(options: TurnStateOptions) {
    this.sink = options.sink;
    this.placement = new StepPlacement(options.parentPlacement);
    this.citations = createCitationAllocator(options.citations ?? {});
    this.conversation = [...options.messages];
    this.userQuery = lastUserText(options.messages);
    this.recoveryAttemptsLeft = options.recoveryAttempts;
  }

  /** Adds a message to the conversation and to what the turn returns. */
  append(message: ChatMessage): void {
    this.conversation.push(message);
    this.added.push(message);
  }

  /** Sends `stop` and returns the turn's result. */
  finish(): ChatTurnResult {
    this.sink.emitAt(this.placement.at({ turn: this.turn, tab: 0 }), {
      type: 'stop',
      reason: this.stopReason,
    });
    return {
      answer: this.answer,
      stopReason: this.stopReason,
      messages: this.added,
      citedDocuments: citedIn(this.answer, this.citations.mapping),
      documents: this.citations.mapping,
      toolOutcomes: this.toolOutcomes,
      cycles: this.cycles,
      recoveredToolCalls: this.recoveredToolCalls,
      ...omitUndefined({ error: this.error }),
    };
  }
}

function citedIn(answer: string, mapping: ReadonlyMap<number, CitedDocument>): CitedDocument[] {
  const cited = new Map<number, CitedDocument>();
  for (const number of new CitationMarkerScanner().process(`${answer}\n`)) {
    const document = mapping.get(number);
    if (document) cited.set(number, document);
  }
  return [...cited.values()];
}

function lastUserText(messages: readonly ChatMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'user') return message.content;
  }
  return '';
}
