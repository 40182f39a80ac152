import type { ChatTurn, ToolCallSpan, ToolRunHooks } from '@toolbus/core';
import type { Packet } from '@toolbus/spec';
import { placementKey } from '@toolbus/spec';

/** A turn whose stream says, at each tool call that failed, that it failed. */
export interface ToolFailurePackets {
  /** The hooks to run the turn with (they wrap `inner`, whose spans still end as before). */
  readonly hooks: ToolRunHooks;
  /** The turn's packets with an `error` before the section end of every failed call that streamed none. */
  wrap(turn: ChatTurn): ChatTurn;
}

/**
 * Makes a failed tool call visible in the packet stream. The agent loop streams an `error` packet only for
 * failures the user should see as such (an unexpected error, the outbound guard's refusal); a call stopped with
 * its turn, timed out, or refused for its arguments only ends its section, so a client reading the stream (the
 * AI SDK's `useChat` above all, whose tool part would show the output of a call that never finished) cannot
 * tell it from a success. The call's outcome is learnt from its run hook, which the loop calls as the call ends,
 * before its section end reaches this stream; the error carries the message the model was given.
 */
export function toolFailurePackets(inner?: ToolRunHooks): ToolFailurePackets {
  const failures = new Map<string, { readonly code: string; readonly message: string }>();
  const hooks: ToolRunHooks = {
    onToolCallStart(event) {
      let span: ToolCallSpan | undefined;
      try {
        span = inner?.onToolCallStart?.(event);
      } catch {
        // Tracing never fails a turn.
      }
      return {
        end(outcome) {
          const rich = outcome.response.rich;
          if (outcome.status !== 'success' && outcome.status !== 'merged') {
            failures.set(placementKey(event.call.placement), {
              code: rich?.type === 'failure' ? (rich.code ?? outcome.status) : outcome.status,
              message: rich?.type === 'failure' ? rich.message : outcome.response.llmFacing,
            });
          }
          span?.end(outcome);
        },
      };
    },
  };
  async function* withFailures(turn: ChatTurn): AsyncGenerator<Packet> {
    const errored = new Set<string>();
    for await (const packet of turn) {
      const key = placementKey(packet.placement);
      if (packet.obj.type === 'error') errored.add(key);
      if (packet.obj.type === 'section-end') {
        const failure = failures.get(key);
        failures.delete(key);
        if (failure !== undefined && !errored.has(key)) {
          yield {
            placement: packet.placement,
            modelIndex: packet.modelIndex,
            obj: { type: 'error', ...failure },
          };
        }
        errored.delete(key);
      }
      yield packet;
    }
  }
  return {
    hooks,
    wrap: (turn) => ({ result: turn.result, [Symbol.asyncIterator]: () => withFailures(turn) }),
  };
}
