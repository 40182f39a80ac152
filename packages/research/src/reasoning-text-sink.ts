import type { PacketSink } from '@toolbus/core';
import type { Placement } from '@toolbus/spec';

/** A sink that shows an agent's answer text as reasoning; `close()` ends a block still open at the end. */
export interface ReasoningTextSink extends PacketSink {
  close(): void;
}

/**
 * For a loop whose text is not the answer (the Deep Research orchestrator, the coding agent): text it writes is
 * shown as reasoning, closed (`reasoning-end`, which answer text never has) before the next packet that is not
 * part of it, or at `close()`. A retraction of that text (recovery found a call in it) has no reasoning form and
 * is dropped; citations are not announced; the loop's own `stop` is not the turn's.
 */
export function createReasoningTextSink(target: PacketSink): ReasoningTextSink {
  let open: Placement | undefined;
  const close = () => {
    if (open) target.emitAt(open, { type: 'reasoning-end' });
    open = undefined;
  };
  return {
    emitAt(placement, obj) {
      switch (obj.type) {
        case 'message-start':
          close();
          open = placement;
          target.emitAt(placement, { type: 'reasoning-start' });
          return;
        case 'message-delta':
          target.emitAt(placement, { type: 'reasoning-delta', reasoning: obj.content });
          return;
        case 'message-replace':
        case 'citation-info':
          return;
        case 'stop':
          close();
          return;
        default:
          close();
          target.emitAt(placement, obj);
      }
    },
    close,
  };
}
