import type { Packet, Placement } from '@toolbus/spec';

/**
 * What a running turn's packets tell about where it stands: the placement of each tool call (an approval packet
 * joins the stream at the call whose code asked), the latest cycle, and the answer streamed since the last tool
 * call (what a stopped turn's history keeps when the loop's own history has no answer yet: it writes one only when
 * a model step completes).
 */
export class TurnAnswerTracker {
  readonly #toolPlacements = new Map<string, Placement>();
  #latestCycle = 0;
  #answer = '';

  /** Takes in a packet the loop emitted. */
  see(packet: Packet): void {
    const topLevel = !packet.placement.path?.length;
    if (packet.obj.type === 'tool-start') {
      this.#toolPlacements.set(packet.obj.toolCallId, packet.placement);
      if (topLevel) this.#answer = '';
    }
    if (!topLevel) return;
    this.#latestCycle = Math.max(this.#latestCycle, packet.placement.turn);
    if (packet.obj.type === 'message-delta') this.#answer += packet.obj.content;
    if (packet.obj.type === 'message-replace') this.#answer = packet.obj.content;
  }

  /** Where a packet about a tool call goes: at the call, or the top level of the latest cycle for an unknown one. */
  placementOf(toolCallId: string | undefined): Placement {
    const known = toolCallId === undefined ? undefined : this.#toolPlacements.get(toolCallId);
    return known ?? { turn: this.#latestCycle, tab: 0 };
  }

  /** The answer streamed since the last top-level tool call. */
  get answerSoFar(): string {
    return this.#answer;
  }
}
