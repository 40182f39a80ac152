import type { ChatSummary } from '@toolbus/client';
import { useState } from 'react';
import { client, messageOf } from '../common/api.ts';
import { Feedback } from '../common/feedback.tsx';

/** The caller's chats: open, rename (inline), delete (confirmed), new. */
export function ChatList(props: {
  readonly chats: readonly ChatSummary[];
  readonly activeId: string | undefined;
  readonly onOpen: (chatId: string) => void;
  readonly onChanged: () => void;
  readonly onNew: () => void;
}) {
  const [editing, setEditing] = useState<string | undefined>();
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | undefined>();
  const rename = async (chatId: string) => {
    try {
      await client.renameChat(chatId, title.trim());
      setEditing(undefined);
      props.onChanged();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  const remove = async (chat: ChatSummary) => {
    if (!window.confirm(`Delete "${chat.title}"?`)) return;
    try {
      await client.deleteChat(chat.id);
      props.onChanged();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  return (
    <nav className="chat-list" aria-label="Chats">
      <button type="button" className="new-chat" onClick={props.onNew}>
        New chat
      </button>
      <Feedback error={error} />
      <ul>
        {props.chats.map((chat) => (
          <li key={chat.id} className={chat.id === props.activeId ? 'active' : ''}>
            {editing === chat.id ? (
              <form
                onSubmit={(event) => {
                  event.preventDefault();
                  void rename(chat.id);
                }}
              >
                <label className="visually-hidden" htmlFor={`rename-${chat.id}`}>
                  New title
                </label>
                <input
                  id={`rename-${chat.id}`}
                  value={title}
                  onChange={(event) => setTitle(event.target.value)}
                  onKeyDown={(event) => {
                    if (event.key === 'Escape') setEditing(undefined);
                  }}
                  // biome-ignore lint/a11y/noAutofocus: the user just asked to rename this chat
                  autoFocus
                />
                <button type="submit">Save</button>
              </form>
            ) : (
              <>
                <a
                  href={`#/chats/${chat.id}`}
                  aria-current={chat.id === props.activeId ? 'page' : undefined}
                  onClick={() => props.onOpen(chat.id)}
                >
                  {chat.title}
                </a>
                <span className="chat-actions">
                  <button
                    type="button"
                    aria-label={`Rename ${chat.title}`}
                    onClick={() => {
                      setEditing(chat.id);
                      setTitle(chat.title);
                    }}
                  >
                    Rename
                  </button>
                  <button type="button" aria-label={`Delete ${chat.title}`} onClick={() => void remove(chat)}>
                    Delete
                  </button>
                </span>
              </>
            )}
          </li>
        ))}
      </ul>
    </nav>
  );
}
