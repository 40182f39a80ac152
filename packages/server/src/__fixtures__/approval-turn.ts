// One chat turn streamed over SSE that may stop at an approval card: what every egress-approval test drives.
import { readSse } from './test-server.ts';

export interface WirePacket {
  sequence: number;
  placement: { turn: number; tab: number; path?: unknown[] };
  obj: { type: string; [key: string]: unknown };
}

/**
 * Streams one turn of `chatId` (the response of `send`, a POST of a message), calling `onApproval` at each
 * approval card while the stream is still open; resolves with every packet once the stream and the decisions end.
 */
export async function streamApprovalTurn(options: {
  readonly send: () => Promise<Response>;
  readonly onApproval: (approvalId: string) => Promise<void> | void;
}): Promise<WirePacket[]> {
  const decided: Promise<void>[] = [];
  const events = await readSse(await options.send(), (event) => {
    const packet = JSON.parse(event.data) as WirePacket;
    if (packet.obj.type === 'approval-request') {
      decided.push(Promise.resolve(options.onApproval(String(packet.obj.approvalId))));
    }
  });
  await Promise.all(decided);
  return events.map((event) => JSON.parse(event.data) as WirePacket);
}

/** How the turn's approval was resolved (`approved`, `rejected`, `expired`, …), if it had one. */
export function resolutionOf(packets: readonly WirePacket[]): unknown {
  return packets.find((packet) => packet.obj.type === 'approval-resolved')?.obj.resolution;
}
