import type { PacketObject, Placement, PlacementLevel, ToolEmitter } from '@toolbus/spec';
import { isPlacementWithin, nestedPlacement } from '@toolbus/spec';
import type { PacketSink } from './packet-sink.ts';

/** A tool's emitter plus the runner's handle to close it. */
export interface FencedToolEmitter extends ToolEmitter {
  /** Closes this emitter and every emitter nested from it: later emits are dropped. */
  fence(): void;
}

interface Fence {
  closed: boolean;
}

/**
 * Creates the emitter a running tool gets: bound to its placement, writing into `sink`, and fenced when the
 * runner records the call's result, so a tool that ignores its abort signal cannot write into the stream later.
 */
export function createFencedToolEmitter(sink: PacketSink, placement: Placement): FencedToolEmitter {
  return new FencedEmitter(sink, placement, { closed: false });
}

// A class rather than closures: one of these is made per tool call, and prototype methods keep that cheap.
class FencedEmitter implements FencedToolEmitter {
  readonly placement: Placement;
  readonly #sink: PacketSink;
  readonly #fence: Fence;

  constructor(sink: PacketSink, placement: Placement, fence: Fence) {
    this.#sink = sink;
    this.placement = placement;
    this.#fence = fence;
  }

  get closed(): boolean {
    return this.#fence.closed;
  }

  emit(obj: PacketObject): void {
    if (!this.#fence.closed) this.#sink.emitAt(this.placement, obj);
  }

  emitAt(target: Placement, obj: PacketObject): void {
    if (!this.#fence.closed && isPlacementWithin(target, this.placement)) this.#sink.emitAt(target, obj);
  }

  nested(level: PlacementLevel): ToolEmitter {
    return new FencedEmitter(this.#sink, nestedPlacement(this.placement, level), this.#fence);
  }

  fence(): void {
    this.#fence.closed = true;
  }
}
