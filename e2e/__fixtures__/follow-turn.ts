// A client that follows one turn to its end through a load balancer, reconnecting with Last-Event-ID whenever the
// connection breaks (the replica it reached died), as a browser's EventSource does. The events are parsed by the
// client package's parser, the one every toolbus client reads SSE with.
import { sseEvents } from '@toolbus/client';

/** A packet as it came over the wire. */
export interface WirePacket {
  readonly sequence: number;
  readonly placement: { readonly turn: number; readonly tab: number; readonly path?: readonly number[] };
  readonly obj: { readonly type: string; readonly [key: string]: unknown };
}

/** What following a turn saw. */
export interface FollowedTurn {
  /** Every packet received, in arrival order (a repeat or a gap would show here). */
  readonly packets: readonly WirePacket[];
  readonly reconnects: number;
}

/** Reads SSE packets from `response` into `onPacket`; resolves when the server ends the stream, throws when it breaks. */
async function readPackets(response: Response, onPacket: (packet: WirePacket, id: string | undefined) => void) {
  for await (const event of sseEvents(response.body as ReadableStream<Uint8Array>)) {
    if (event.event === 'error') throw new Error(`stream error: ${event.data}`);
    onPacket(JSON.parse(event.data) as WirePacket, event.id);
  }
}

/**
 * Follows a turn until a stream ends cleanly after a `stop` packet. `first` is the response that started the
 * turn (its stream), when there is one. Any other end (a reset, a 5xx from the balancer while it notices a dead
 * replica) reconnects to the stream route with the last sequence received.
 */
export async function followTurn(options: {
  readonly baseUrl: string;
  readonly chatId: string;
  readonly turn: number;
  readonly first?: Response;
  readonly maxReconnects?: number;
  /** Called with each packet as it arrives. */
  readonly onPacket?: (packet: WirePacket) => void;
  /** Called with each stream response (the first and every reconnect), before its packets. */
  readonly onResponse?: (response: Response) => void;
}): Promise<FollowedTurn> {
  const packets: WirePacket[] = [];
  let reconnects = 0;
  let response: Response | undefined = options.first;
  for (;;) {
    try {
      response ??= await fetch(`${options.baseUrl}/v1/chats/${options.chatId}/turns/${options.turn}/stream`, {
        headers: { accept: 'text/event-stream', 'last-event-id': String(packets.at(-1)?.sequence ?? 0) },
      });
      if (!response.ok) throw new Error(`status ${response.status}`);
      options.onResponse?.(response);
      await readPackets(response, (packet, id) => {
        if (id !== String(packet.sequence)) throw new Error(`event id ${id} is not the sequence ${packet.sequence}`);
        packets.push(packet);
        options.onPacket?.(packet);
      });
      if (packets.at(-1)?.obj.type === 'stop') return { packets, reconnects };
    } catch {
      // Broken: reconnect below.
    }
    response = undefined;
    reconnects += 1;
    if (reconnects > (options.maxReconnects ?? 200)) {
      throw new Error(`turn ${options.chatId}/${options.turn}: gave up after ${reconnects} reconnects`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
  }
}
