import type { FileView } from '@toolbus/client';
import { omitUndefined } from '@toolbus/spec';
import { type DragEvent, type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { client, messageOf } from '../common/api.ts';
import { Feedback } from '../common/feedback.tsx';
import { transientFailure } from '../common/transient-failure.ts';
import { type FailedSend, SendFailure } from './send-failure.tsx';

/** What the composer sends. */
export interface ComposedMessage {
  readonly content: string;
  readonly fileIds: readonly string[];
  /** The attached files themselves, so the sent message shows them. */
  readonly files: readonly FileView[];
  readonly personaId?: string;
  readonly model?: string;
  readonly research: boolean;
}

/** The message box: text, attached files (picker or drag and drop), persona, model, Deep Research; send or stop. */
export function Composer(props: {
  readonly running: boolean;
  readonly isAdmin: boolean;
  readonly onSend: (message: ComposedMessage) => Promise<void>;
  readonly onStop: () => Promise<void>;
}) {
  const id = useId();
  const [text, setText] = useState('');
  const [files, setFiles] = useState<FileView[]>([]);
  const [uploading, setUploading] = useState(0);
  const [error, setError] = useState<string | undefined>();
  const [failedSend, setFailedSend] = useState<FailedSend | undefined>();
  const [dragging, setDragging] = useState(false);
  const [personas, setPersonas] = useState<{ id: string; name: string }[]>([]);
  const [personaId, setPersonaId] = useState('');
  const [model, setModel] = useState('');
  const [research, setResearch] = useState(false);
  const input = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (!props.isAdmin) return;
    void client
      .request<{ personas: { id: string; name: string }[] }>('GET', '/v1/admin/personas')
      .then((answer) => setPersonas(answer.personas))
      .catch(() => setPersonas([]));
  }, [props.isAdmin]);

  const upload = async (list: FileList | File[]) => {
    setError(undefined);
    for (const file of Array.from(list)) {
      setUploading((count) => count + 1);
      try {
        const stored = await client.uploadFile(file.name, file, file.type);
        setFiles((current) => [...current, stored]);
      } catch (failure) {
        setError(`${file.name}: ${messageOf(failure)}`);
      } finally {
        setUploading((count) => count - 1);
      }
    }
  };
  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    if (!text.trim() || props.running || uploading > 0) return;
    setError(undefined);
    setFailedSend(undefined);
    try {
      await props.onSend({
        content: text,
        fileIds: files.map((file) => file.id),
        files,
        ...omitUndefined({ personaId: personaId || undefined }),
        ...(model.trim() ? { model: model.trim() } : {}),
        research,
      });
      setText('');
      setFiles([]);
    } catch (failure) {
      // The text and the files stay as they were: a failed send loses nothing the person wrote.
      const transient = transientFailure(failure);
      if (transient) setFailedSend({ words: transient.words, retryAt: Date.now() + transient.waitMs });
      else setError(messageOf(failure));
    }
    input.current?.focus();
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    if (event.dataTransfer.files.length > 0) void upload(event.dataTransfer.files);
  };
  return (
    <form
      className={`composer${dragging ? ' dragging' : ''}`}
      onSubmit={submit}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      aria-label="Send a message"
    >
      <label htmlFor={`${id}-text`} className="visually-hidden">
        Message
      </label>
      <textarea
        id={`${id}-text`}
        ref={input}
        value={text}
        placeholder="Ask anything. Drop files here to attach them."
        rows={3}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey) {
            event.preventDefault();
            void submit(event);
          }
        }}
      />
      <AttachmentList
        files={files}
        uploading={uploading}
        onRemove={(fileId) => setFiles((current) => current.filter((other) => other.id !== fileId))}
      />
      <div className="composer-row">
        <label className="file-pick">
          Attach
          <input
            type="file"
            multiple
            className="visually-hidden"
            onChange={(event) => {
              if (event.target.files) void upload(event.target.files);
              event.target.value = '';
            }}
          />
        </label>
        <TurnOptions
          id={id}
          personas={personas}
          personaId={personaId}
          onPersona={setPersonaId}
          model={model}
          onModel={setModel}
          research={research}
          onResearch={setResearch}
        />
        <span className="spacer" />
        {props.running ? (
          <button type="button" className="stop" onClick={() => void props.onStop()}>
            Stop
          </button>
        ) : (
          <button type="submit" disabled={!text.trim() || uploading > 0}>
            Send
          </button>
        )}
      </div>
      {failedSend ? <SendFailure failure={failedSend} onRetry={() => void submit()} /> : null}
      <Feedback error={error} />
    </form>
  );
}

/** The files attached so far, each removable, and how many are still uploading. */
function AttachmentList(props: {
  readonly files: readonly FileView[];
  readonly uploading: number;
  readonly onRemove: (fileId: string) => void;
}) {
  if (props.files.length === 0 && props.uploading === 0) return null;
  return (
    <ul className="attachments" aria-label="Attached files">
      {props.files.map((file) => (
        <li key={file.id}>
          {file.name}{' '}
          <button type="button" aria-label={`Remove ${file.name}`} onClick={() => props.onRemove(file.id)}>
            ×
          </button>
        </li>
      ))}
      {props.uploading > 0 ? <li>Uploading {props.uploading}…</li> : null}
    </ul>
  );
}

/** What the next turn runs with: the persona (admins), the model, and whether it is Deep Research. */
function TurnOptions(props: {
  readonly id: string;
  readonly personas: readonly { id: string; name: string }[];
  readonly personaId: string;
  readonly onPersona: (personaId: string) => void;
  readonly model: string;
  readonly onModel: (model: string) => void;
  readonly research: boolean;
  readonly onResearch: (research: boolean) => void;
}) {
  return (
    <>
      {props.personas.length > 0 ? (
        <label>
          Persona{' '}
          <select value={props.personaId} onChange={(event) => props.onPersona(event.target.value)}>
            <option value="">Chat default</option>
            {props.personas.map((persona) => (
              <option key={persona.id} value={persona.id}>
                {persona.name}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <label>
        Model{' '}
        <input
          value={props.model}
          onChange={(event) => props.onModel(event.target.value)}
          placeholder="server default"
          list={`${props.id}-models`}
          size={18}
        />
      </label>
      <datalist id={`${props.id}-models`}>
        <option value="openai:gpt-4.1" />
        <option value="anthropic:claude-sonnet-4-5" />
      </datalist>
      <label>
        <input
          type="checkbox"
          checked={props.research}
          onChange={(event) => props.onResearch(event.target.checked)}
        />{' '}
        Deep Research
      </label>
    </>
  );
}
