import type { PacketObject } from './packet.ts';
import type { Placement, PlacementLevel } from './placement.ts';

/**
 * What a running tool emits through. It is bound to the call's placement and fenced when the call's section
 * ends (or it times out): from then on `emit` drops everything, so a late tool cannot write into the stream.
 */
export interface ToolEmitter {
  readonly placement: Placement;
  /** True once the section ended; emits are dropped. */
  readonly closed: boolean;
  emit(obj: PacketObject): void;
  /**
   * Emits at a placement nested under this one (a sub-agent's own tool calls); a placement outside this
   * emitter's subtree is dropped, so a tool can never write into another tool's section.
   */
  emitAt(placement: Placement, obj: PacketObject): void;
  /** An emitter one level deeper (a sub-agent's step and tab), fenced together with this one. */
  nested(level: PlacementLevel): ToolEmitter;
}
