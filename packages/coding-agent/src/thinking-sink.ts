import type { PacketSink } from '@toolbus/core';
import { textAsReasoning } from '@toolbus/research';
import type { Placement } from '@toolbus/spec';

/** A sink that shows an agent's visible text as thinking; `close()` ends a block still open at the end. */
export interface ThinkingSink extends PacketSink {
  close(): void;
}

/**
 * Re-types an agent's answer text as reasoning (`textAsReasoning`) and closes each block with `reasoning-end`,
 * which answer text never has: a block ends at the first packet that is not more of its text (the step's tool
 * calls, its next step), or at `close()`.
 */
export function createThinkingSink(target: PacketSink): ThinkingSink {
  let open: Placement | undefined;
  const end = () => {
    if (open) target.emitAt(open, { type: 'reasoning-end' });
    open = undefined;
  };
  return {
    emitAt(placement, obj) {
      if (obj.type === 'message-delta' || obj.type === 'citation-info') {
        const retyped = textAsReasoning(obj);
        if (retyped) target.emitAt(placement, retyped);
        return;
      }
      end();
      const retyped = textAsReasoning(obj);
      if (!retyped) return;
      if (obj.type === 'message-start') open = placement;
      target.emitAt(placement, retyped);
    },
    close: end,
  };
}
