import type { PacketObject, Placement } from '@toolbus/spec';

/** Anything packets can be emitted into at a given placement: the turn's emitter, or a tool's own emitter. */
export interface PacketSink {
  emitAt(placement: Placement, obj: PacketObject): void;
}

/** A sink that discards everything: for APIs that want results, not a stream. */
export const nullPacketSink: PacketSink = { emitAt() {} };
