import type { PacketSink } from '@toolbus/core';
import type { PacketObject, Placement } from '@toolbus/spec';

/** Maps a packet to what the caller's stream should carry instead (`undefined` drops it). */
export type PacketRetype = (obj: PacketObject) => PacketObject | undefined;

/**
 * A sink that re-types the packets of a step before they reach `target`: the plan step's answer becomes plan
 * packets, an agent's report becomes intermediate-report packets, the orchestrator's text becomes reasoning.
 * With `at`, every packet goes to that placement (a report belongs to its agent's tab, not to a step in it).
 */
export function createRetypingSink(options: {
  readonly target: PacketSink;
  readonly retype: PacketRetype;
  readonly at?: Placement;
}): PacketSink {
  return {
    emitAt(placement, obj) {
      const retyped = options.retype(obj);
      if (retyped) options.target.emitAt(options.at ?? placement, retyped);
    },
  };
}

/** The plan step: answer text → plan packets; reasoning stays reasoning. */
export const asPlan: PacketRetype = (obj) => {
  if (obj.type === 'message-start') return { type: 'research-plan-start' };
  if (obj.type === 'message-delta') return { type: 'research-plan-delta', content: obj.content };
  if (obj.type === 'citation-info') return undefined;
  return obj;
};

/** An agent's report step: answer text → intermediate-report packets (markers stay raw); nothing else. */
export const asIntermediateReport: PacketRetype = (obj) => {
  if (obj.type === 'message-start') return { type: 'intermediate-report-start' };
  if (obj.type === 'message-delta') return { type: 'intermediate-report-delta', content: obj.content };
  return undefined;
};

/** A nested loop's own `stop` is not the turn's: the caller ends the section. */
export const withoutStop: PacketRetype = (obj) => (obj.type === 'stop' ? undefined : obj);
