import type { Packet, PacketObject } from './packet.ts';
import { placementKey } from './placement.ts';

/** The packet types whose text a reader appends, and the field that text is in. */
const textDeltaFields = {
  'message-delta': 'content',
  'reasoning-delta': 'reasoning',
  'research-plan-delta': 'content',
  'intermediate-report-delta': 'content',
} as const satisfies Partial<Record<PacketObject['type'], string>>;

type TextDeltaType = keyof typeof textDeltaFields;

function textDeltaType(packet: Packet): TextDeltaType | undefined {
  const { type } = packet.obj;
  return Object.hasOwn(textDeltaFields, type) ? (type as TextDeltaType) : undefined;
}

function textOf(packet: Packet, type: TextDeltaType): string {
  return (packet.obj as Record<string, unknown>)[textDeltaFields[type]] as string;
}

/**
 * Joins runs of text deltas of the same type, placement and model into one packet each, keeping every other packet
 * and the order. A reader that appends deltas ends with the same text, from fewer packets: a server that falls
 * behind a model (a thousand streams at once) then stores and sends one packet per pass instead of one per token.
 */
export function coalesceTextDeltas(packets: readonly Packet[]): Packet[] {
  const joined: Packet[] = [];
  let index = 0;
  while (index < packets.length) {
    const packet = packets[index] as Packet;
    const type = textDeltaType(packet);
    index += 1;
    if (type === undefined) {
      joined.push(packet);
      continue;
    }
    let end = index;
    let key: string | undefined;
    while (end < packets.length) {
      const next = packets[end] as Packet;
      if (next.obj.type !== type || next.modelIndex !== packet.modelIndex) break;
      key ??= placementKey(packet.placement);
      if (placementKey(next.placement) !== key) break;
      end += 1;
    }
    if (end === index) {
      joined.push(packet);
      continue;
    }
    let text = textOf(packet, type);
    for (let part = index; part < end; part += 1) text += textOf(packets[part] as Packet, type);
    joined.push({ ...packet, obj: { ...packet.obj, [textDeltaFields[type]]: text } as PacketObject });
    index = end;
  }
  return joined;
}
