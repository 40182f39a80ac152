import type { Packet, Placement } from '@toolbus/spec';
import { placementKey } from '@toolbus/spec';
import { SECTION_CLOSERS } from './section-closers.ts';

/** What {@link closeInterruptedStream} found. */
export interface ClosedStream {
  /** The packets to append, in order: afterwards nothing the interrupted run started is left open. */
  readonly closing: readonly Packet[];
  /** The first top-level turn the stream has not used: the resumed run's packets start there. */
  readonly nextTurn: number;
}

/**
 * Closes what a run that died mid-way left open in its stream, so a resumed run's packets can follow them: open
 * reasoning ends; each open section (a tool call, a research agent, the plan) ends, innermost first, a tool call
 * or an agent with an error saying why it has no result (and a tool call with its `tool-end`, aborted); a report cut off mid-way is blanked with
 * `message-replace` (the resumed run writes it again, so the turn ends with one report). `stop` is not added: the
 * resumed run ends the turn.
 */
export function closeInterruptedStream(packets: readonly Packet[], reason: string): ClosedStream {
  const sections = new Map<
    string,
    { placement: Placement; opener: Packet['obj']['type']; tool?: { toolCallId: string; toolName: string } }
  >();
  const reasoning = new Map<string, Placement>();
  let report: Placement | undefined;
  let lastTurn = -1;
  for (const { placement, obj } of packets) {
    lastTurn = Math.max(lastTurn, placement.turn);
    const key = placementKey(placement);
    const closer = SECTION_CLOSERS[obj.type];
    if (closer === 'reasoning-end') reasoning.set(key, placement);
    // An agent's report sits inside the agent's section: the agent's section-end closes it.
    else if (closer === 'section-end' && !sections.has(key))
      sections.set(key, {
        placement,
        opener: obj.type,
        ...(obj.type === 'tool-start'
          ? { tool: { toolCallId: obj.toolCallId, toolName: obj.toolName } }
          : {}),
      });
    // A call whose tool-end is out needs no other.
    if (obj.type === 'tool-end') {
      const section = sections.get(key);
      if (section) delete section.tool;
    }
    if (obj.type === 'reasoning-end') reasoning.delete(key);
    if (obj.type === 'section-end') sections.delete(key);
    if (obj.type === 'message-start' && !placement.path?.length) report = placement;
  }
  const closing: Packet[] = [];
  const add = (placement: Placement, obj: Packet['obj']) => closing.push({ placement, modelIndex: 0, obj });
  for (const placement of reasoning.values()) add(placement, { type: 'reasoning-end' });
  const innermostFirst = [...sections.values()].sort(
    (a, b) => (b.placement.path?.length ?? 0) - (a.placement.path?.length ?? 0),
  );
  for (const { placement, opener, tool } of innermostFirst) {
    const error = { code: 'turn_interrupted', message: `No result: ${reason}` };
    if (opener === 'tool-start' || opener === 'research-agent-start')
      add(placement, { type: 'error', ...error });
    if (tool) add(placement, { type: 'tool-end', ...tool, status: 'aborted', error, durationMs: 0 });
    add(placement, { type: 'section-end' });
  }
  if (report) add(report, { type: 'message-replace', content: '' });
  return { closing, nextTurn: lastTurn + 1 };
}
