import type { ChatDetailView } from '@toolbus/client';
import { omitUndefined } from '@toolbus/spec';
import { useCallback, useEffect, useRef, useState } from 'react';
import { client, messageOf } from '../common/api.ts';
import { Feedback } from '../common/feedback.tsx';
import { retryRead } from '../common/transient-failure.ts';
import { type ComposedMessage, Composer } from './composer.tsx';
import { type SentFile, TurnPanel } from './turn-panel.tsx';

interface TurnEntry {
  readonly index: number;
  readonly userText: string;
  readonly userFiles: readonly SentFile[];
  /** Running when the page showed it (its tool work starts open). */
  readonly live: boolean;
}

function turnsOf(detail: ChatDetailView): TurnEntry[] {
  return detail.turns.map((turn) => {
    const user = detail.messages.find(
      (message) => message.turn === turn.index && message.message.role === 'user',
    )?.message;
    return {
      index: turn.index,
      userText: user?.content ?? '',
      userFiles: user?.role === 'user' ? (user.files ?? []) : [],
      live: turn.status === 'running',
    };
  });
}

/** After the first answer the server titles the chat (a model request of its own): the list is asked again. */
const titleRefreshDelaysMs = [0, 1500, 4000, 9000];

/** One chat: its turns (each replayed from the server, the running one live) and the composer. */
export function ChatView(props: {
  readonly chatId: string;
  readonly title: string | undefined;
  readonly isAdmin: boolean;
  readonly onChanged: () => void;
}) {
  const [turns, setTurns] = useState<TurnEntry[] | undefined>();
  const [running, setRunning] = useState<number | undefined>();
  const [error, setError] = useState<string | undefined>();
  const end = useRef<HTMLDivElement>(null);
  // Turns sent from this page: only their end can bring a new title (a replayed old turn cannot).
  const sentHere = useRef(new Set<number>());
  useEffect(() => {
    let live = true;
    const abort = new AbortController();
    setTurns(undefined);
    setError(undefined);
    retryRead(() => client.getChat(props.chatId), { signal: abort.signal })
      .then((detail) => {
        if (!live) return;
        setTurns(turnsOf(detail));
        setRunning(detail.turns.find((turn) => turn.status === 'running')?.index);
      })
      .catch((failure) => live && setError(messageOf(failure)));
    return () => {
      live = false;
      abort.abort();
    };
  }, [props.chatId]);
  const { onChanged } = props;
  const onEnded = useCallback(
    (index: number, live: boolean) => {
      setRunning((current) => (current === index ? undefined : current));
      if (index === 0 && live) for (const delay of titleRefreshDelaysMs) setTimeout(onChanged, delay);
    },
    [onChanged],
  );
  const send = async (message: ComposedMessage) => {
    const started = await client.sendMessage(props.chatId, {
      content: message.content,
      ...(message.fileIds.length > 0 ? { fileIds: message.fileIds } : {}),
      ...omitUndefined({ personaId: message.personaId || undefined, model: message.model || undefined }),
      ...(message.research ? { research: true } : {}),
    });
    setTurns((current) => [
      ...(current ?? []),
      { index: started.turn, userText: message.content, userFiles: message.files, live: true },
    ]);
    sentHere.current.add(started.turn);
    setRunning(started.turn);
    props.onChanged();
    requestAnimationFrame(() => end.current?.scrollIntoView({ block: 'end' }));
  };
  const stop = async () => {
    if (running === undefined) return;
    try {
      await client.stopTurn(props.chatId, running);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  return (
    <div className="chat">
      <h1 className="chat-title">{props.title ?? 'Chat'}</h1>
      <div className="turns">
        <Feedback error={error} />
        {turns === undefined && !error ? <p>Loading…</p> : null}
        {turns?.length === 0 ? <p className="empty">Ask something to start.</p> : null}
        {turns?.map((turn) => (
          <TurnPanel
            key={turn.index}
            chatId={props.chatId}
            turn={turn.index}
            userText={turn.userText}
            userFiles={turn.userFiles}
            live={turn.live}
            onEnded={() => onEnded(turn.index, sentHere.current.has(turn.index))}
          />
        ))}
        <div ref={end} />
      </div>
      {turns === undefined && error ? null : (
        <Composer running={running !== undefined} isAdmin={props.isAdmin} onSend={send} onStop={stop} />
      )}
    </div>
  );
}
