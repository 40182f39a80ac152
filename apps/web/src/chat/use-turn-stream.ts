import type { WirePacket } from '@toolbus/client';
import { startTransition, useEffect, useRef, useState } from 'react';
import { client, messageOf } from '../common/api.ts';
import { applyPacket } from '../turn/apply-packet.ts';
import { createTurnTree, type TurnTree, type UiPacket } from '../turn/turn-tree.ts';

/** The connection of a turn's stream, as the page shows it. */
export interface StreamState {
  readonly phase: 'connecting' | 'live' | 'reconnecting' | 'ended' | 'failed';
  /** The last packet received (the server's cursor a reconnect resumes after). */
  readonly after: number;
  /** How many times the connection was reopened. */
  readonly resumes: number;
  readonly error?: string;
}

/** How long one slice of packet folding may take before the page gets the thread back. */
const sliceMs = 4;

/**
 * Follows one turn: folds its packets into a tree (replayed from the start, then live), redrawing at most once a
 * frame and folding in slices so a burst of packets never blocks input. Reconnects resume from the last sequence.
 * A slice runs in a task of its own just after a frame, not inside the frame's animation callback: there it would
 * add its time to the frame's style, layout and paint, one task that grows past 50 ms on a busy machine.
 */
export function useTurnStream(
  chatId: string,
  turn: number,
): { tree: TurnTree; version: number; stream: StreamState } {
  const treeRef = useRef<TurnTree>(createTurnTree());
  const [version, setVersion] = useState(0);
  const [stream, setStream] = useState<StreamState>({ phase: 'connecting', after: 0, resumes: 0 });
  useEffect(() => {
    const tree = createTurnTree();
    treeRef.current = tree;
    const abort = new AbortController();
    const queue: WirePacket[] = [];
    let frame = 0;
    let draining = false;
    const afterFrame = new MessageChannel();
    let resumes = 0;
    let head = 0;
    // One slice of folding per frame, then a redraw of what it changed; the redraw is a transition, so React
    // renders it in interruptible pieces and input stays responsive however big the turn.
    const drain = () => {
      frame = 0;
      draining = true;
      const deadline = performance.now() + sliceMs;
      while (head < queue.length && performance.now() < deadline) {
        applyPacket(tree, queue[head] as UiPacket);
        head += 1;
      }
      if (head > 4096) {
        queue.splice(0, head);
        head = 0;
      }
      const version = tree.version;
      startTransition(() => setVersion(version));
      if (head < queue.length) schedule();
      else draining = false;
    };
    afterFrame.port1.onmessage = () => {
      if (!abort.signal.aborted) drain();
    };
    const schedule = () => {
      frame = requestAnimationFrame(() => afterFrame.port2.postMessage(null));
    };
    let readSince = performance.now();
    void (async () => {
      try {
        for await (const packet of client.streamTurn(chatId, turn, {
          signal: abort.signal,
          onConnection: (state) => {
            if (!state.live) resumes += 1;
            setStream({ phase: state.live ? 'live' : 'reconnecting', after: state.after, resumes });
          },
        })) {
          queue.push(packet);
          // Reading a big replay is microtasks only: hand the thread back now and then.
          if (performance.now() - readSince > sliceMs) {
            await new Promise((resolve) => setTimeout(resolve, 0));
            readSince = performance.now();
          }
          if (!draining) {
            draining = true;
            schedule();
          }
        }
        if (!abort.signal.aborted) setStream({ phase: 'ended', after: tree.lastSequence, resumes });
      } catch (error) {
        if (!abort.signal.aborted)
          setStream({ phase: 'failed', after: tree.lastSequence, resumes, error: messageOf(error) });
      }
    })();
    return () => {
      abort.abort();
      if (frame) cancelAnimationFrame(frame);
      afterFrame.port1.close();
    };
  }, [chatId, turn]);
  return { tree: treeRef.current, version, stream };
}
