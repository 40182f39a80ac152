import type { Packet, PacketObject } from '@toolbus/spec';

/** A packet narrowed to one packet type. */
export type PacketOfType<T extends PacketObject['type']> = Packet & {
  obj: Extract<PacketObject, { type: T }>;
};

/** The packets of one type, narrowed: what almost every turn test reads its stream with. */
export function packetsOfType<T extends PacketObject['type']>(
  packets: readonly Packet[],
  type: T,
): PacketOfType<T>[] {
  return packets.filter((packet) => packet.obj.type === type) as PacketOfType<T>[];
}

/** Drains a running turn (anything that streams packets and then settles a result): its packets, then its result. */
export async function collectTurn<R>(
  turn: AsyncIterable<Packet> & { readonly result: Promise<R> },
): Promise<{ packets: Packet[]; result: R }> {
  const packets: Packet[] = [];
  for await (const packet of turn) packets.push(packet);
  return { packets, result: await turn.result };
}
