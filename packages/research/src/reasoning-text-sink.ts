import type { PacketSink } from '@toolbus/core';
import type { Placement } from '@toolbus/spec';

/**
 * The orchestrator only calls tools: text it writes anyway is shown as reasoning, closed (`reasoning-end`) before
 * the next packet that is not part of it. A retraction of that text (recovery found a call in it) has no
 * reasoning form and is dropped; citations are not announced; the loop's own `stop` is not the turn's.
 */
export function createReasoningTextSink(target: PacketSink): PacketSink {
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
  };
}
