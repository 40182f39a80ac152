import type { Placement } from '@toolbus/spec';
import type { TurnCitationAllocator } from '../citations/citation-allocator.ts';
import { CitationMarkerScanner } from '../citations/citation-marker-scanner.ts';
import type { PacketSink } from '../emitter/packet-sink.ts';

/** Options for {@link AnswerWriter}. */
export interface AnswerWriterOptions {
  readonly sink: PacketSink;
  readonly citations: TurnCitationAllocator;
  /** Documents already announced in this turn: a `citation-info` goes out once per document. */
  readonly announcedDocuments: Set<string>;
  /** Whether this text is the final answer's, so its citation markers are announced. */
  readonly citing: boolean;
  /** A `message-start` already went out for this message. */
  readonly started?: boolean;
}

/**
 * Writes one message's visible text as packets: `message-start` (with the documents numbered so far) before the
 * first text, a `citation-info` for each newly cited document as its marker streams by (markers split over
 * chunks are found), then `message-delta`; and `message-replace` when the text shown turns out to be something
 * else. The model step and the turn loop's recovered answers both write through it.
 */
export class AnswerWriter {
  readonly #options: AnswerWriterOptions;
  readonly #scanner = new CitationMarkerScanner();
  #started: boolean;

  constructor(options: AnswerWriterOptions) {
    this.#options = options;
    this.#started = options.started === true;
  }

  /** Whether a `message-start` went out. */
  get started(): boolean {
    return this.#started;
  }

  /** Writes `text` (nothing for an empty string). */
  write(at: Placement, text: string): void {
    if (!text) return;
    const { sink, citations, announcedDocuments } = this.#options;
    this.#start(at);
    if (this.#options.citing) {
      for (const number of this.#scanner.process(text)) {
        const document = citations.mapping.get(number);
        if (document && !announcedDocuments.has(document.id)) {
          announcedDocuments.add(document.id);
          sink.emitAt(at, { type: 'citation-info', citationNumber: number, documentId: document.id });
        }
      }
    }
    sink.emitAt(at, { type: 'message-delta', content: text });
  }

  /** Tells consumers the message's whole text is `content` (they redraw it). */
  replace(at: Placement, content: string): void {
    this.#start(at);
    this.#options.sink.emitAt(at, { type: 'message-replace', content });
  }

  #start(at: Placement): void {
    if (this.#started) return;
    this.#started = true;
    this.#options.sink.emitAt(at, {
      type: 'message-start',
      finalDocuments: [...this.#options.citations.mapping.values()],
    });
  }
}
