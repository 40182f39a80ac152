import type { connectedAppSchema } from '@toolbus/api-schema';
import type { WireShape } from '@toolbus/client';
import type { ActionPolicy } from '@toolbus/spec';
import { useState } from 'react';
import { ActionForm } from '../common/action-form.tsx';
import { AdminTable } from '../common/admin-table.tsx';
import { client } from '../common/api.ts';
import { DeleteButton } from '../common/delete-button.tsx';
import { Feedback } from '../common/feedback.tsx';
import { useAction, useLoad } from '../common/use-load.ts';

type ConnectedAppView = WireShape<typeof connectedAppSchema>;

/** Spec's policies, the default (`ASK`) first. */
const policies: readonly ActionPolicy[] = ['ASK', 'ALWAYS', 'DENY'];

/**
 * The caller's connected apps (and the organisation's): APIs that code in run_python may call, with credentials
 * the egress proxy adds on the way out. Credential fields are write-only: the page sends them once and only ever
 * shows their names.
 */
export function AppsPage(props: { readonly isAdmin: boolean }) {
  const apps = useLoad(() => client.request<{ apps: ConnectedAppView[] }>('GET', '/v1/apps'), []);
  const action = useAction();
  return (
    <div>
      <h1>Connected apps</h1>
      <p>
        Code in run_python has no network of its own. It can call these APIs through the egress proxy, which
        adds the credential on the way out, so the sandbox never sees it. Actions set to ASK wait for your
        approval in the chat.
      </p>
      <ConnectAppForm isAdmin={props.isAdmin} action={action} onConnected={apps.reload} />
      <Feedback error={action.error ?? apps.error} note={action.note} />
      <ConnectedAppsTable
        apps={apps.value?.apps ?? []}
        isAdmin={props.isAdmin}
        action={action}
        onRemoved={apps.reload}
      />
    </div>
  );
}

type Action = ReturnType<typeof useAction>;

/** The form that connects an app: its URLs, its credential header, one optional named action and the policies. */
function ConnectAppForm(props: {
  readonly isAdmin: boolean;
  readonly action: Action;
  readonly onConnected: () => void;
}) {
  const [name, setName] = useState('');
  const [patterns, setPatterns] = useState('');
  const [headerName, setHeaderName] = useState('Authorization');
  const [headerValue, setHeaderValue] = useState('');
  const [actionName, setActionName] = useState('');
  const [actionMethod, setActionMethod] = useState('POST');
  const [actionPath, setActionPath] = useState('');
  const [actionPolicy, setActionPolicy] = useState<ActionPolicy>('ASK');
  const [otherPolicy, setOtherPolicy] = useState<ActionPolicy>('ASK');
  const [shared, setShared] = useState(false);
  return (
    <ActionForm
      action={props.action}
      className="stack-form"
      aria-label="Connect an app"
      submit="Connect app"
      onSubmit={async () => {
        const urlPatterns = patterns
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean);
        await client.request('POST', '/v1/apps', {
          body: {
            name,
            urlPatterns,
            headers: { [headerName]: headerValue },
            ...(actionName && actionPath
              ? {
                  actions: [
                    {
                      name: actionName,
                      ...(actionMethod === '*' ? {} : { method: actionMethod }),
                      pathPattern: actionPath,
                      policy: actionPolicy,
                    },
                  ],
                }
              : {}),
            defaultPolicy: otherPolicy,
            ...(shared ? { shared: true } : {}),
          },
        });
        // The credential leaves the page's state once sent.
        setHeaderValue('');
        setName('');
        props.onConnected();
        return `Connected ${name}.`;
      }}
    >
      <label>
        Name <input value={name} onChange={(event) => setName(event.target.value)} required />
      </label>
      <label>
        URL patterns (regular expressions, one per line, matching the whole URL)
        <textarea
          value={patterns}
          onChange={(event) => setPatterns(event.target.value)}
          rows={2}
          required
          placeholder="https://api\.example\.com/.*"
        />
      </label>
      <label>
        Header name{' '}
        <input value={headerName} onChange={(event) => setHeaderName(event.target.value)} required />
      </label>
      <label>
        Header value (write-only; may use {'{{org.NAME}}'} and {'{{user.NAME}}'})
        <input
          type="password"
          autoComplete="off"
          value={headerValue}
          onChange={(event) => setHeaderValue(event.target.value)}
          required
        />
      </label>
      <fieldset>
        <legend>One named action (optional)</legend>
        <label>
          Action name <input value={actionName} onChange={(event) => setActionName(event.target.value)} />
        </label>
        <label>
          Method
          <select value={actionMethod} onChange={(event) => setActionMethod(event.target.value)}>
            {['POST', 'PUT', 'PATCH', 'DELETE', 'GET', '*'].map((method) => (
              <option key={method}>{method}</option>
            ))}
          </select>
        </label>
        <label>
          Path pattern <input value={actionPath} onChange={(event) => setActionPath(event.target.value)} />
        </label>
        <label>
          Action policy
          <select
            value={actionPolicy}
            onChange={(event) => setActionPolicy(event.target.value as ActionPolicy)}
          >
            {policies.map((policy) => (
              <option key={policy}>{policy}</option>
            ))}
          </select>
        </label>
      </fieldset>
      <label>
        Policy of every other request
        <select value={otherPolicy} onChange={(event) => setOtherPolicy(event.target.value as ActionPolicy)}>
          {policies.map((policy) => (
            <option key={policy}>{policy}</option>
          ))}
        </select>
      </label>
      {props.isAdmin ? (
        <label>
          <input type="checkbox" checked={shared} onChange={(event) => setShared(event.target.checked)} /> For
          the whole organisation
        </label>
      ) : null}
    </ActionForm>
  );
}

/** The caller's apps, with their credential names only (the values are write-only), and a remove button each. */
function ConnectedAppsTable(props: {
  readonly apps: readonly ConnectedAppView[];
  readonly isAdmin: boolean;
  readonly action: Action;
  readonly onRemoved: () => void;
}) {
  return (
    <AdminTable caption="Your apps" columns={['Name', 'URLs', 'Credentials', 'Actions', 'Remove']}>
      {props.apps.map((app) => (
        <tr key={app.id}>
          <td>
            {app.name}
            {app.shared ? ' (organisation)' : ''}
          </td>
          <td>
            {app.urlPatterns.map((pattern) => (
              <code key={pattern}>{pattern} </code>
            ))}
          </td>
          <td>
            {[
              ...app.headerNames,
              ...app.organizationValueNames.map((key) => `org.${key}`),
              ...app.userValueNames.map((key) => `user.${key}`),
            ].join(', ')}
          </td>
          <td>{app.actions.map((entry) => `${entry.name}: ${entry.policy}`).join(', ')}</td>
          <td>
            {app.shared && !props.isAdmin ? (
              'organisation'
            ) : (
              <DeleteButton
                action={props.action}
                aria-label={`Remove ${app.name}`}
                path={`/v1/apps/${app.id}`}
                onDeleted={props.onRemoved}
                note={`Removed ${app.name}.`}
              >
                Remove
              </DeleteButton>
            )}
          </td>
        </tr>
      ))}
    </AdminTable>
  );
}
