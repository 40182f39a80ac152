import type { ChatSummary, MeView } from '@toolbus/client';
import { ToolbusClientError } from '@toolbus/client';
import { useCallback, useEffect, useRef, useState } from 'react';
import { AppsPage } from './admin/apps-page.tsx';
import { DocumentsPage } from './admin/documents-page.tsx';
import { KeysPage } from './admin/keys-page.tsx';
import { McpPage } from './admin/mcp-page.tsx';
import { OrganizationsPage } from './admin/organizations-page.tsx';
import { PersonasPage } from './admin/personas-page.tsx';
import { SettingsPage } from './admin/settings-page.tsx';
import { SkillsPage } from './admin/skills-page.tsx';
import { UsersPage } from './admin/users-page.tsx';
import { ChatList } from './chat/chat-list.tsx';
import { ChatView } from './chat/chat-view.tsx';
import { client, messageOf, signOut } from './common/api.ts';
import { Feedback } from './common/feedback.tsx';
import { RetryBanner } from './common/retry-banner.tsx';
import { SignIn } from './common/sign-in.tsx';
import { retryRead } from './common/transient-failure.ts';

type Route =
  | { readonly page: 'chat'; readonly chatId?: string }
  | { readonly page: 'admin'; readonly section: string };

function routeOf(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'admin') return { page: 'admin', section: parts[1] || 'personas' };
  if (parts[0] === 'chats' && parts[1]) return { page: 'chat', chatId: decodeURIComponent(parts[1]) };
  return { page: 'chat' };
}

const adminSections = [
  ['personas', 'Personas and tools'],
  ['mcp', 'MCP servers'],
  ['skills', 'Skills'],
  ['documents', 'Documents'],
  ['keys', 'API keys'],
  ['apps', 'Connected apps'],
  ['users', 'Users'],
  ['settings', 'Settings'],
  ['organizations', 'Organisations'],
] as const;

type Theme = 'light' | 'dark';

function initialTheme(): Theme {
  const saved = localStorage.getItem('toolbus.theme');
  if (saved === 'light' || saved === 'dark') return saved;
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** The whole page: sign-in when needed, then chats, and the admin pages for admins. */
export function App() {
  const [me, setMe] = useState<MeView | undefined | null>(undefined);
  const [error, setError] = useState<string | undefined>();
  const [route, setRoute] = useState<Route>(() => routeOf(location.hash));
  const [chats, setChats] = useState<readonly ChatSummary[]>([]);
  const [theme, setTheme] = useState<Theme>(initialTheme);
  const main = useRef<HTMLElement>(null);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('toolbus.theme', theme);
  }, [theme]);
  useEffect(() => {
    const onHash = () => {
      setRoute(routeOf(location.hash));
      // Focus moves to the new view, so keyboard and screen reader users land on it.
      requestAnimationFrame(() => main.current?.focus({ preventScroll: true }));
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const loadMe = useCallback(() => {
    // Asked first, so a page that is not signed in shows the sign-in form without a 401 (a console error).
    retryRead(() => client.sessionState())
      .then((state) => (state.signedIn ? retryRead(() => client.me()) : null))
      .then((caller) => setMe(caller))
      .catch((failure) => {
        if (ToolbusClientError.isInstance(failure) && (failure.status === 401 || failure.status === 403))
          setMe(null);
        else setError(messageOf(failure));
      });
  }, []);
  useEffect(loadMe, [loadMe]);
  const loadChats = useCallback(() => {
    retryRead(() => client.listChats())
      .then(setChats)
      .catch((failure) => setError(messageOf(failure)));
  }, []);
  useEffect(() => {
    if (me) loadChats();
  }, [me, loadChats]);
  const newChat = async () => {
    try {
      const chat = await client.createChat({ title: 'New chat' });
      loadChats();
      location.hash = `#/chats/${chat.id}`;
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  if (me === undefined) {
    return error ? (
      <p role="alert" className="error">
        {error}
      </p>
    ) : (
      <>
        <RetryBanner />
        <p>Loading…</p>
      </>
    );
  }
  if (me === null) return <SignIn onSignedIn={loadMe} />;
  const isAdmin = me.role === 'admin' && me.scopes.includes('admin');
  // An organisation's admin manages its members without being a deployment admin.
  const isOrgAdmin = isAdmin || me.organization?.role === 'admin';
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <TopBar
        route={route}
        isAdmin={isAdmin}
        email={me.email}
        theme={theme}
        onTheme={setTheme}
        onSignedOut={() => {
          setMe(null);
          setChats([]);
        }}
      />
      <RetryBanner />
      <Feedback error={error} />
      <div className="body">
        {route.page === 'chat' ? (
          <ChatList
            chats={chats}
            activeId={route.chatId}
            onOpen={() => undefined}
            onChanged={loadChats}
            onNew={() => void newChat()}
          />
        ) : (
          <AdminNav section={route.section} isAdmin={isAdmin} isOrgAdmin={isOrgAdmin} />
        )}
        <main id="main" ref={main} tabIndex={-1}>
          {route.page === 'chat' ? (
            route.chatId ? (
              <ChatView
                key={route.chatId}
                chatId={route.chatId}
                title={chats.find((chat) => chat.id === route.chatId)?.title}
                isAdmin={isAdmin}
                onChanged={loadChats}
              />
            ) : (
              <div className="welcome">
                <h1>Chats</h1>
                <p>Pick a chat, or start one.</p>
                <button type="button" onClick={() => void newChat()}>
                  New chat
                </button>
              </div>
            )
          ) : (
            <AdminPage section={route.section} isAdmin={isAdmin} isOrgAdmin={isOrgAdmin} />
          )}
        </main>
      </div>
    </div>
  );
}

/** The top bar: brand, the two sections, who is signed in, the theme switch and sign-out. */
function TopBar(props: {
  readonly route: Route;
  readonly isAdmin: boolean;
  readonly email: string;
  readonly theme: Theme;
  readonly onTheme: (theme: Theme) => void;
  readonly onSignedOut: () => void;
}) {
  const { route, isAdmin, theme } = props;
  return (
    <header className="top">
      <a href="#/" className="brand">
        toolbus
      </a>
      <nav aria-label="Sections">
        <a href="#/" aria-current={route.page === 'chat' ? 'page' : undefined}>
          Chat
        </a>
        <a
          href={isAdmin ? '#/admin/personas' : '#/admin/keys'}
          aria-current={route.page === 'admin' ? 'page' : undefined}
        >
          {isAdmin ? 'Admin' : 'API keys'}
        </a>
      </nav>
      <span className="spacer" />
      <span className="who">{props.email}</span>
      <button
        type="button"
        onClick={() => props.onTheme(theme === 'dark' ? 'light' : 'dark')}
        aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}
      >
        {theme === 'dark' ? 'Light' : 'Dark'}
      </button>
      <button type="button" onClick={() => void signOut().finally(props.onSignedOut)}>
        Sign out
      </button>
    </header>
  );
}

/** The admin sections this caller may open; the current one is marked. */
function AdminNav(props: {
  readonly section: string;
  readonly isAdmin: boolean;
  readonly isOrgAdmin: boolean;
}) {
  const { isAdmin, isOrgAdmin } = props;
  return (
    <nav className="admin-nav" aria-label="Admin">
      <ul>
        {adminSections
          .filter(
            ([section]) =>
              isAdmin ||
              section === 'keys' ||
              section === 'apps' ||
              (section === 'organizations' && isOrgAdmin),
          )
          .map(([section, label]) => (
            <li key={section}>
              <a href={`#/admin/${section}`} aria-current={props.section === section ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
      </ul>
    </nav>
  );
}

/** The admin page for a section: a member who is not an admin sees only their keys, apps and organisation. */
function AdminPage(props: {
  readonly section: string;
  readonly isAdmin: boolean;
  readonly isOrgAdmin: boolean;
}) {
  const { isAdmin, isOrgAdmin } = props;
  const route = { section: props.section };
  return route.section === 'organizations' && isOrgAdmin ? (
    <OrganizationsPage canCreate={isAdmin} />
  ) : route.section === 'apps' ? (
    <AppsPage isAdmin={isAdmin} />
  ) : route.section === 'keys' || !isAdmin ? (
    <KeysPage isAdmin={isAdmin} />
  ) : route.section === 'mcp' ? (
    <McpPage />
  ) : route.section === 'skills' ? (
    <SkillsPage />
  ) : route.section === 'documents' ? (
    <DocumentsPage />
  ) : route.section === 'users' ? (
    <UsersPage />
  ) : route.section === 'settings' ? (
    <SettingsPage />
  ) : (
    <PersonasPage />
  );
}
