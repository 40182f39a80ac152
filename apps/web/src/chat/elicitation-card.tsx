import {
  type ElicitationField,
  type ElicitationResolution,
  type ElicitationSchema,
  elicitationChoices,
  elicitationItemChoices,
} from '@toolbus/spec';
import { type FormEvent, useContext, useState } from 'react';
import { client, messageOf } from '../common/api.ts';
import { Feedback } from '../common/feedback.tsx';
import type { ElicitationRequestPacket } from '../turn/ui-packet.ts';
import { TurnContext } from './turn-context.ts';

/** The body of the answer route (`elicitationAnswerBody`). */
type Answer = { action: 'accept'; content?: FormContent } | { action: 'decline' } | { action: 'cancel' };
type FormContent = Record<string, string | number | boolean | string[]>;

const resolutionText: Readonly<Record<ElicitationResolution, string>> = {
  accept: 'Answered',
  decline: 'Declined',
  cancel: 'Cancelled',
  expired: 'Expired: nobody answered in time',
};

/**
 * An MCP server's question to the user, in the chat where the tool runs: a form built from the requested schema
 * (text, number, yes/no, choices; defaults filled in), or a web page to open (a link the user follows, never opened
 * for them) and consent to. The answer goes to `POST /v1/chats/{chatId}/elicitations/{id}` (the tool call waits on
 * it); the card shows the outcome from the stream's `elicitation-resolved`, or the server's refusal, in place.
 */
export function ElicitationCard(props: {
  readonly request: ElicitationRequestPacket;
  readonly resolved: ElicitationResolution | undefined;
}) {
  const context = useContext(TurnContext);
  const [sent, setSent] = useState<ElicitationResolution | undefined>();
  const [error, setError] = useState<string | undefined>();
  const { request } = props;
  const resolved = props.resolved ?? sent;
  const answer = async (body: Answer) => {
    setError(undefined);
    try {
      await client.request(
        'POST',
        `/v1/chats/${encodeURIComponent(context?.chatId ?? '')}/elicitations/${encodeURIComponent(request.elicitationId)}`,
        { body },
      );
      setSent(body.action);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  const titleId = `elicitation-${request.elicitationId}`;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const content = request.requestedSchema
      ? formContent(request.requestedSchema, new FormData(event.currentTarget))
      : undefined;
    void answer(content === undefined ? { action: 'accept' } : { action: 'accept', content });
  };
  return (
    <section className="approval elicitation" aria-labelledby={titleId}>
      <h4 id={titleId}>{request.serverName} asks</h4>
      <p className="elicitation-message">{request.message}</p>
      <p className="elicitation-expiry">
        Waits until{' '}
        <time dateTime={request.expiresAt}>{new Date(request.expiresAt).toLocaleTimeString()}</time>
      </p>
      {resolved ? (
        <p role="status">{resolutionText[resolved]}</p>
      ) : (
        <form onSubmit={submit} aria-labelledby={titleId}>
          {request.mode === 'url' && request.url ? (
            <p>
              Open{' '}
              <a href={safeUrl(request.url)} target="_blank" rel="noopener noreferrer">
                {request.url}
              </a>
              , then continue.
            </p>
          ) : null}
          {Object.entries(request.requestedSchema?.properties ?? {}).map(([name, field]) => (
            <FieldInput
              key={name}
              id={`${titleId}-${name}`}
              name={name}
              field={field}
              required={request.requestedSchema?.required?.includes(name) === true}
            />
          ))}
          <div className="approval-actions">
            <button type="submit">{request.mode === 'url' ? 'Continue' : 'Send'}</button>
            <button type="button" onClick={() => void answer({ action: 'decline' })}>
              Decline
            </button>
            <button type="button" onClick={() => void answer({ action: 'cancel' })}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <Feedback error={error} />
    </section>
  );
}

/** One field of the form, as its schema asks: a checkbox, a number, a choice, several choices, or text. */
function FieldInput(props: {
  readonly id: string;
  readonly name: string;
  readonly field: ElicitationField;
  readonly required: boolean;
}) {
  const { id, name, field } = props;
  const label = field.title ?? name;
  const choices = elicitationChoices(field);
  const items = elicitationItemChoices(field);
  const titles = field.enumNames ?? (field.oneOf ?? field.items?.anyOf)?.map((option) => option.title);
  const hint = field.description ? <small id={`${id}-hint`}>{field.description}</small> : null;
  const described = field.description ? `${id}-hint` : undefined;
  if (field.type === 'boolean') {
    return (
      <p className="elicitation-field">
        <label htmlFor={id}>
          <input
            id={id}
            name={name}
            type="checkbox"
            defaultChecked={field.default === true}
            aria-describedby={described}
          />{' '}
          {label}
        </label>
        {hint}
      </p>
    );
  }
  if (field.type === 'array' && items) {
    const chosen = Array.isArray(field.default) ? field.default : [];
    return (
      <fieldset className="elicitation-field" aria-describedby={described}>
        <legend>{label}</legend>
        {items.map((item, index) => (
          <label key={item}>
            <input type="checkbox" name={name} value={item} defaultChecked={chosen.includes(item)} />{' '}
            {titles?.[index] ?? item}
          </label>
        ))}
        {hint}
      </fieldset>
    );
  }
  return (
    <p className="elicitation-field">
      <label htmlFor={id}>
        {label}
        {props.required ? ' (required)' : ''}
      </label>
      {choices ? (
        <select id={id} name={name} defaultValue={String(field.default ?? '')} aria-describedby={described}>
          {props.required && field.default !== undefined ? null : <option value="">—</option>}
          {choices.map((choice, index) => (
            <option key={choice} value={choice}>
              {titles?.[index] ?? choice}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          name={name}
          type={inputType(field)}
          defaultValue={field.default === undefined ? '' : String(field.default)}
          aria-describedby={described}
          {...(field.type === 'number' ? { step: 'any' } : {})}
        />
      )}
      {hint}
    </p>
  );
}

function inputType(field: ElicitationField): string {
  if (field.type === 'number' || field.type === 'integer') return 'number';
  if (field.format === 'email') return 'email';
  if (field.format === 'uri') return 'url';
  if (field.format === 'date') return 'date';
  return 'text';
}

/** The form's values typed as the schema says; an empty field is left out (the server checks required ones). */
function formContent(schema: ElicitationSchema, data: FormData): FormContent {
  const content: FormContent = {};
  for (const [name, field] of Object.entries(schema.properties)) {
    if (field.type === 'boolean') {
      content[name] = data.get(name) !== null;
      continue;
    }
    if (field.type === 'array') {
      content[name] = data.getAll(name).map(String);
      continue;
    }
    const value = String(data.get(name) ?? '').trim();
    if (value === '') continue;
    content[name] = field.type === 'number' || field.type === 'integer' ? Number(value) : value;
  }
  return content;
}

/** Only a web page is ever a link: anything else (a `javascript:` URL a hostile server sent) links nowhere. */
function safeUrl(url: string): string | undefined {
  return /^https?:\/\//i.test(url) ? url : undefined;
}
