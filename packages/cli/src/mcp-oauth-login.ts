import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createStorageMcpTokenStore, toMcpServerConfig } from '@toolbus/assembly';
import {
  completeMcpOAuth,
  connectMcpServer,
  McpAuthorizationRequiredError,
  type McpOAuthOptions,
} from '@toolbus/mcp';
import type { FetchFunction } from '@toolbus/spec';
import { ToolbusError, withinDeadline } from '@toolbus/spec';
import type { McpServer, Storage } from '@toolbus/storage';

/** The settings key holding the loopback redirect URL a server's OAuth client was registered with. */
export function oauthRedirectSetting(serverId: string): string {
  return `cli.mcpOAuthRedirect.${serverId}`;
}

/**
 * The OAuth options of the local user for a server (after `mcp login`): the token store over storage and the
 * redirect URL the login registered. Undefined before any login.
 */
export async function localOAuthOptions(input: {
  readonly storage: Storage;
  readonly server: McpServer;
  readonly userId: string;
}): Promise<McpOAuthOptions | undefined> {
  if (input.server.authType !== 'oauth') return undefined;
  const redirect = await input.storage.settings.get(oauthRedirectSetting(input.server.id));
  return {
    tokenStore: createStorageMcpTokenStore(input.storage),
    userId: input.userId,
    redirectUrl: typeof redirect === 'string' ? redirect : 'http://127.0.0.1/oauth/callback',
  };
}

/**
 * The browser flow for a CLI (a native app, RFC 8252): a one-shot HTTP server on a loopback port receives the
 * redirect; the authorization URL is printed and opened in the browser (`$BROWSER`, else xdg-open/open on a
 * terminal); the code is exchanged with PKCE and the tokens stored encrypted for the local user.
 */
export async function runMcpOAuthLogin(input: {
  readonly server: McpServer;
  readonly storage: Storage;
  readonly userId: string;
  readonly fetch: FetchFunction;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly interactive: boolean;
  readonly say: (line: string) => void;
  /** How long to wait for the browser to come back (default 5 minutes). */
  readonly timeoutMs?: number;
}): Promise<void> {
  let deliver: (query: URLSearchParams) => void = () => undefined;
  const returned = new Promise<URLSearchParams>((resolve) => {
    deliver = resolve;
  });
  const callback = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/oauth/callback') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    response.end('toolbus: you can close this tab and return to the terminal.\n');
    deliver(url.searchParams);
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  const redirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/oauth/callback`;
  const config = toMcpServerConfig(input.server);
  const oauth: McpOAuthOptions = {
    tokenStore: createStorageMcpTokenStore(input.storage),
    userId: input.userId,
    redirectUrl,
    onAuthorizationRequired: (authorizationUrl) => {
      input.say(`Opening the browser to sign in to "${input.server.name}":\n  ${authorizationUrl.href}`);
      openBrowser(authorizationUrl.href, input.env, input.interactive);
    },
  };
  try {
    await input.storage.settings.set(oauthRedirectSetting(input.server.id), redirectUrl);
    try {
      const connection = await connectMcpServer(config, { fetch: input.fetch, oauth });
      await connection.close();
      input.say(`"${input.server.name}" is already signed in.`);
      return;
    } catch (error) {
      if (!McpAuthorizationRequiredError.isInstance(error)) throw error;
    }
    const query = await withinDeadline(returned, {
      timeoutMs: input.timeoutMs ?? 300_000,
      onTimeout: () =>
        new ToolbusError({
          code: 'mcp_oauth_timeout',
          message: `No answer from the browser for "${input.server.name}"; run \`toolbus mcp login ${input.server.name}\` again.`,
        }),
    });
    const problem = query.get('error');
    if (problem !== null) {
      throw new ToolbusError({
        code: 'mcp_oauth_refused',
        message: `The sign-in to "${input.server.name}" was refused: ${problem}${query.get('error_description') ? ` (${query.get('error_description')})` : ''}.`,
      });
    }
    await completeMcpOAuth(config, {
      fetch: input.fetch,
      oauth,
      authorizationCode: query.get('code') ?? '',
      state: query.get('state') ?? '',
    });
    input.say(`Signed in to "${input.server.name}".`);
  } finally {
    await new Promise((resolve) => callback.close(resolve));
  }
}

function openBrowser(
  url: string,
  env: Readonly<Record<string, string | undefined>>,
  interactive: boolean,
): void {
  const configured = env.BROWSER?.trim();
  const [command, ...args] = configured
    ? configured.split(/\s+/)
    : interactive
      ? [process.platform === 'darwin' ? 'open' : 'xdg-open']
      : [];
  if (command === undefined) return;
  // The URL is one argument, never shell text: a hostile server cannot inject a command through it.
  const child = spawn(command, [...args, url], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}
