import type { WirePacket } from '@toolbus/client';
import { useEffect, useRef, useState } from 'react';
import { client, messageOf } from '../common/api.ts';
import { applyPacket, createTurnTree, type TurnTree, type UiPacket } from '../turn/turn-tree.ts';

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
const sliceMs = 8;

/**
 * Follows one turn: folds its packets into a tree (replayed from the start, then live), redrawing at most once a
 * frame and folding in slices so a burst of packets never blocks input. Reconnects resume from the last sequence.
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
    let resumes = 0;
    const flush = () => {
      frame = 0;
      setVersion(tree.version);
    };
    const schedule = () => {
      if (frame === 0) frame = requestAnimationFrame(flush);
    };
    const drain = () => {
      draining = true;
      const deadline = performance.now() + sliceMs;
      while (queue.length > 0 && performance.now() < deadline) applyPacket(tree, queue.shift() as UiPacket);
      schedule();
      if (queue.length > 0) setTimeout(drain, 0);
      else draining = false;
    };
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
          if (!draining) drain();
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
    };
  }, [chatId, turn]);
  return { tree: treeRef.current, version, stream };
}
