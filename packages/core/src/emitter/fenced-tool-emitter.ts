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
  return fencedEmitter(sink, placement, { closed: false });
}

function fencedEmitter(sink: PacketSink, placement: Placement, fence: Fence): FencedToolEmitter {
  return {
    placement,
    get closed() {
      return fence.closed;
    },
    emit(obj: PacketObject) {
      if (!fence.closed) sink.emitAt(placement, obj);
    },
    emitAt(target: Placement, obj: PacketObject) {
      if (!fence.closed && isPlacementWithin(target, placement)) sink.emitAt(target, obj);
    },
    nested(level: PlacementLevel) {
      return fencedEmitter(sink, nestedPlacement(placement, level), fence);
    },
    fence() {
      fence.closed = true;
    },
  };
}
