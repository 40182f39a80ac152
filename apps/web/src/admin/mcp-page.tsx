import type { mcpToolReviewSchema } from '@toolbus/api-schema';
import type { WireShape } from '@toolbus/client';
import { useState } from 'react';
import { ActionButton } from '../common/action-button.tsx';
import { ActionForm } from '../common/action-form.tsx';
import { AdminTable } from '../common/admin-table.tsx';
import { client } from '../common/api.ts';
import { DeleteButton } from '../common/delete-button.tsx';
import { Feedback } from '../common/feedback.tsx';
import { useAction, useLoad } from '../common/use-load.ts';

interface McpServerView {
  readonly id: string;
  readonly name: string;
  readonly endpoint: { readonly transport: string; readonly url?: string; readonly command?: string };
  readonly authType: string;
}
type McpToolReview = WireShape<typeof mcpToolReviewSchema>;

function ServerTools(props: { readonly server: McpServerView }) {
  const tools = useLoad(
    () => client.request<{ tools: McpToolReview[] }>('GET', `/v1/admin/mcp-servers/${props.server.id}/tools`),
    [props.server.id],
  );
  const action = useAction();
  return (
    <div>
      <AdminTable caption={`Tools of ${props.server.name}`} columns={['Tool', 'Status', 'Action']}>
        {(tools.value?.tools ?? []).map((tool) => (
          <tr key={tool.name}>
            <td title={tool.description}>{tool.name}</td>
            <td>{tool.status}</td>
            <td>
              {tool.status === 'approved' ? null : (
                <ActionButton
                  action={action}
                  run={async () => {
                    await client.request(
                      'POST',
                      `/v1/admin/mcp-servers/${props.server.id}/tools/${encodeURIComponent(tool.name)}/approval`,
                    );
                    tools.reload();
                    return `Approved ${tool.name}.`;
                  }}
                >
                  Approve {tool.name}
                </ActionButton>
              )}
            </td>
          </tr>
        ))}
      </AdminTable>
      <Feedback error={action.error ?? tools.error} note={action.note} />
    </div>
  );
}

/**
 * The caller's own OAuth connection to a server: its status, Connect (the browser goes to the authorization
 * server and comes back here) and Disconnect.
 */
function OAuthConnection(props: {
  readonly server: McpServerView;
  readonly connected: boolean | undefined;
  readonly onChanged: () => void;
}) {
  const action = useAction();
  return (
    <div className="oauth-connection">
      <p>
        Your connection: <strong>{props.connected ? 'connected' : 'not connected'}</strong>
      </p>
      {props.connected ? (
        <DeleteButton
          action={action}
          disabled={action.busy}
          path={`/v1/mcp-servers/${props.server.id}/connection`}
          onDeleted={props.onChanged}
          note={`Disconnected from ${props.server.name}.`}
        >
          Disconnect {props.server.name}
        </DeleteButton>
      ) : (
        <ActionButton
          action={action}
          disabled={action.busy}
          run={async () => {
            const start = await client.request<{ status: string; authorizationUrl?: string }>(
              'POST',
              `/v1/mcp-servers/${props.server.id}/connection`,
              { body: { returnTo: '/#/admin/mcp' } },
            );
            if (start.status === 'authorization_required' && start.authorizationUrl) {
              // The authorization server signs the user in, then sends the browser back to this page.
              window.location.assign(start.authorizationUrl);
              return 'Opening the sign-in page…';
            }
            props.onChanged();
            return `Connected to ${props.server.name}.`;
          }}
        >
          Connect {props.server.name} (OAuth)
        </ActionButton>
      )}
      <Feedback error={action.error} note={action.note} />
    </div>
  );
}

/** MCP servers: connect one (Streamable HTTP or SSE, optional key or OAuth), review its tools, approve drift. */
export function McpPage() {
  const servers = useLoad(
    () => client.request<{ servers: McpServerView[] }>('GET', '/v1/admin/mcp-servers'),
    [],
  );
  const connections = useLoad(
    () => client.request<{ servers: { serverId: string; connected: boolean }[] }>('GET', '/v1/mcp-servers'),
    [],
  );
  const connected = new Map(
    (connections.value?.servers ?? []).map((entry) => [entry.serverId, entry.connected]),
  );
  const action = useAction();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [authType, setAuthType] = useState('none');
  const [apiKey, setApiKey] = useState('');
  const [open, setOpen] = useState<string | undefined>();
  return (
    <div>
      <h1>MCP servers</h1>
      <ActionForm
        action={action}
        className="inline-form"
        submit="Add server"
        onSubmit={async () => {
          const body = {
            name,
            endpoint: { transport: 'streamable-http', url },
            authType,
            ...(authType === 'api-key' && apiKey ? { apiKey } : {}),
          };
          // Checked before it is stored (connect, list tools): a server that cannot work is never "added", and
          // the server's answer says why (the outbound guard's rule, an unreachable host). An OAuth server can
          // only be reached once someone has signed in to it, so it is added first and connected below.
          const check =
            authType === 'oauth'
              ? undefined
              : await client.request<{ tools: { name: string }[] }>('POST', '/v1/admin/mcp-servers/check', {
                  body,
                });
          await client.request('POST', '/v1/admin/mcp-servers', { body });
          setName('');
          setUrl('');
          setApiKey('');
          servers.reload();
          connections.reload();
          if (!check) return `Added ${name}: connect to it with OAuth to list its tools.`;
          const names = check.tools.map((tool) => tool.name);
          return `Connected ${name}: ${names.length} tool(s)${names.length ? ` (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''})` : ''}. Review and approve them below.`;
        }}
      >
        <label>
          Name <input value={name} onChange={(event) => setName(event.target.value)} required />
        </label>
        <label>
          URL <input type="url" value={url} onChange={(event) => setUrl(event.target.value)} required />
        </label>
        <label>
          Auth{' '}
          <select value={authType} onChange={(event) => setAuthType(event.target.value)}>
            <option value="none">none</option>
            <option value="api-key">API key</option>
            <option value="oauth">OAuth</option>
          </select>
        </label>
        {authType === 'api-key' ? (
          <label>
            Key <input type="password" value={apiKey} onChange={(event) => setApiKey(event.target.value)} />
          </label>
        ) : null}
      </ActionForm>
      <Feedback error={action.error ?? servers.error} note={action.note} />
      <ul className="cards">
        {(servers.value?.servers ?? []).map((server) => (
          <li key={server.id} className="card">
            <h3>{server.name}</h3>
            <p>
              {server.endpoint.transport} {server.endpoint.url ?? server.endpoint.command} · auth{' '}
              {server.authType}
            </p>
            {server.authType === 'oauth' ? (
              <OAuthConnection
                server={server}
                connected={connected.get(server.id)}
                onChanged={connections.reload}
              />
            ) : null}
            <button
              type="button"
              aria-expanded={open === server.id}
              onClick={() => setOpen(open === server.id ? undefined : server.id)}
            >
              Review tools
            </button>
            {open === server.id ? <ServerTools server={server} /> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
