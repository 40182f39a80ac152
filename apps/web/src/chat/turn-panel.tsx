import type { CitedDocument } from '@toolbus/spec';
import { type FocusEvent, type MouseEvent, useEffect, useMemo, useRef, useState } from 'react';
import { client } from '../common/api.ts';
import { filesOfTurn } from '../turn/turn-files.ts';
import { stopReasonWords } from './human-words.ts';
import { sourceHref } from './source-href.ts';
import { TurnContext, type TurnContextValue } from './turn-context.ts';
import { TurnFiles } from './turn-files-strip.tsx';
import { LevelView } from './turn-view.tsx';
import { type StreamState, useTurnStream } from './use-turn-stream.ts';

function CitationCard(props: {
  readonly document: CitedDocument;
  readonly top: number;
  readonly left: number;
  readonly unsupported: boolean;
}) {
  const document = props.document;
  const href = sourceHref(document.link);
  return (
    <div
      className="citation-card"
      role="tooltip"
      id="citation-card"
      style={{ top: props.top, left: props.left }}
    >
      <strong>
        [{document.citationNumber}] {document.title}
      </strong>
      <span className="source-type">{document.sourceType}</span>
      <p>{document.blurb}</p>
      {props.unsupported ? (
        <p className="error">A check found a sentence citing this unsupported by it.</p>
      ) : null}
      {href ? (
        <a className="card-link" href={href} target="_blank" rel="noopener noreferrer nofollow">
          {document.link}
        </a>
      ) : null}
    </div>
  );
}

function StreamStatus(props: { readonly stream: StreamState; readonly stopReason: string | undefined }) {
  const { stream } = props;
  let text: string;
  if (stream.phase === 'reconnecting') text = `Connection lost: resuming after packet ${stream.after}…`;
  else if (stream.phase === 'failed')
    text = `Stream failed after packet ${stream.after}: ${stream.error ?? ''}`;
  else if (stream.phase === 'connecting') text = 'Connecting…';
  else if (props.stopReason) text = stopReasonWords(props.stopReason);
  else text = stream.resumes > 0 ? `Live again (resumed after packet ${stream.after})` : 'Live';
  return (
    <p className={`stream-status stream-${stream.phase}`} role="status" data-after={stream.after}>
      {text}
    </p>
  );
}

/** A file sent with a message. */
export interface SentFile {
  readonly id: string;
  readonly name: string;
  readonly mediaType: string;
}

/** The files a message was sent with: image thumbnails and names, each opening the file. */
function SentFiles(props: { readonly files: readonly SentFile[] }) {
  if (props.files.length === 0) return null;
  return (
    <ul className="sent-files" aria-label="Attached files">
      {props.files.map((file) => (
        <li key={file.id}>
          <a href={client.fileContentUrl(file.id)} target="_blank" rel="noopener noreferrer">
            {file.mediaType.startsWith('image/') ? (
              <img src={client.fileContentUrl(file.id)} alt="" className="sent-file-thumb" />
            ) : null}
            {file.name}
          </a>
        </li>
      ))}
    </ul>
  );
}

/** One turn of a chat: the user's message, then everything the turn streamed, with citation cards. */
export function TurnPanel(props: {
  readonly chatId: string;
  readonly turn: number;
  readonly userText: string;
  readonly userFiles?: readonly SentFile[];
  /** The turn was running when the page showed it (default true): its tool work starts open. */
  readonly live?: boolean;
  readonly onEnded?: (reason: string) => void;
}) {
  // Decided once: a turn that ends while watched keeps its work open, under the reader's eyes.
  const [workOpen] = useState(props.live ?? true);
  const { tree, version, stream } = useTurnStream(props.chatId, props.turn);
  const { onEnded } = props;
  const ended =
    tree.stopReason ?? (stream.phase === 'ended' || stream.phase === 'failed' ? stream.phase : undefined);
  // Reported once: a parent that passes a new callback on each render (the chat list reloads on an end) would
  // otherwise be told again on every render, and reload the list in a loop.
  const reportedEnd = useRef(false);
  useEffect(() => {
    if (!ended || reportedEnd.current) return;
    reportedEnd.current = true;
    onEnded?.(ended);
  }, [ended, onEnded]);
  const [card, setCard] = useState<{ number: number; top: number; left: number } | undefined>();
  const unsupportedNumbers = useMemo(
    () =>
      new Set(
        tree.checks.filter((check) => check.verdict === 'unsupported').map((check) => check.citationNumber),
      ),
    [tree, tree.checks],
  );
  const marksVersion = tree.documents.size * 1000 + tree.checks.length;
  const context: TurnContextValue = useMemo(
    () => ({
      tree,
      chatId: props.chatId,
      marksVersion,
      workOpen,
      marks: {
        known: (number) => tree.documents.has(number),
        unsupported: (number) => unsupportedNumbers.has(number),
      },
    }),
    [tree, props.chatId, marksVersion, unsupportedNumbers, workOpen],
  );
  const show = (event: MouseEvent | FocusEvent) => {
    const target = (event.target as HTMLElement).closest<HTMLElement>('[data-cite]');
    if (!target) return;
    const number = Number(target.dataset.cite);
    const box = target.getBoundingClientRect();
    const host = (event.currentTarget as HTMLElement).getBoundingClientRect();
    target.setAttribute('aria-describedby', 'citation-card');
    setCard({
      number,
      top: box.bottom - host.top + 4,
      left: Math.max(0, Math.min(box.left - host.left, host.width - 320)),
    });
  };
  const hide = (event: MouseEvent | FocusEvent) => {
    if ((event.target as HTMLElement).closest('[data-cite]')) setCard(undefined);
  };
  const cardDocument = card ? tree.documents.get(card.number) : undefined;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the tree is mutable; its version says when it changed
  const files = useMemo(() => filesOfTurn(tree), [tree, version]);
  const sources = tree.cited
    .map((number) => tree.documents.get(number))
    .filter((d): d is CitedDocument => d !== undefined);
  return (
    <TurnContext.Provider value={context}>
      <article
        className="turn"
        aria-label={`Turn ${props.turn + 1}`}
        data-version={version}
        data-packets={tree.packetCount}
      >
        <div className="user-message">
          {props.userText}
          <SentFiles files={props.userFiles ?? []} />
        </div>
        {/* biome-ignore lint/a11y/noStaticElementInteractions: delegation for the citation chips (buttons) inside */}
        <div
          className="assistant"
          onMouseOver={show}
          onFocus={show}
          onMouseOut={hide}
          onBlur={hide}
          onKeyDown={(event) => {
            if (event.key === 'Escape') setCard(undefined);
          }}
        >
          <LevelView level={tree.root} />
          {card && cardDocument ? (
            <CitationCard
              document={cardDocument}
              top={card.top}
              left={card.left}
              unsupported={unsupportedNumbers.has(card.number)}
            />
          ) : null}
        </div>
        <TurnFiles files={files} />
        {sources.length > 0 ? (
          <section className="sources" aria-label="Sources">
            <h3>Sources</h3>
            <ol>
              {sources.map((document) => (
                <li key={document.citationNumber} value={document.citationNumber}>
                  {sourceHref(document.link) ? (
                    <a href={sourceHref(document.link)} target="_blank" rel="noopener noreferrer nofollow">
                      {document.title}
                    </a>
                  ) : (
                    document.title
                  )}{' '}
                  <span className="source-type">{document.sourceType}</span>
                </li>
              ))}
            </ol>
          </section>
        ) : null}
        <StreamStatus stream={stream} stopReason={tree.stopReason} />
      </article>
    </TurnContext.Provider>
  );
}
