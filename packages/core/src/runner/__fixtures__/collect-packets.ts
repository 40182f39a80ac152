// Test support for the runner: records every packet an Emitter sends while it is open.
import type { Packet, Placement } from '@toolbus/spec';
import type { Emitter } from '../../emitter/emitter.ts';

/** The packets `emitter` emits from now on, in order, as the consumer of the turn's stream would see them. */
export function collectPackets(emitter: Emitter): Packet[] {
  const packets: Packet[] = [];
  const originalEmit = emitter.emitAt.bind(emitter);
  emitter.emitAt = (placement: Placement, obj) => {
    if (!emitter.closed) packets.push({ placement, modelIndex: emitter.modelIndex, obj });
    originalEmit(placement, obj);
  };
  return packets;
}
