import type { ApiKeyView } from '@toolbus/client';
import { useState } from 'react';
import { ActionForm } from '../common/action-form.tsx';
import { AdminTable } from '../common/admin-table.tsx';
import { client } from '../common/api.ts';
import { DeleteButton } from '../common/delete-button.tsx';
import { Feedback } from '../common/feedback.tsx';
import { useAction, useLoad } from '../common/use-load.ts';

/** The caller's API keys: create one (shown once), revoke. */
export function KeysPage(props: { readonly isAdmin: boolean }) {
  const keys = useLoad(() => client.request<{ keys: ApiKeyView[] }>('GET', '/v1/keys'), []);
  const action = useAction();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['chat']);
  const [shown, setShown] = useState<string | undefined>();
  const scopeChoices = props.isAdmin ? ['chat', 'admin', 'mcp', 'keys'] : ['chat', 'mcp', 'keys'];
  return (
    <div>
      <h1>API keys</h1>
      <ActionForm
        action={action}
        className="inline-form"
        submit="Create key"
        submitDisabled={scopes.length === 0}
        onSubmit={async () => {
          const created = await client.request<{ key: string }>('POST', '/v1/keys', {
            body: { name, scopes },
          });
          setShown(created.key);
          setName('');
          keys.reload();
        }}
      >
        <label>
          Name <input value={name} onChange={(event) => setName(event.target.value)} required />
        </label>
        <fieldset>
          <legend>Scopes</legend>
          {scopeChoices.map((scope) => (
            <label key={scope}>
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(event) =>
                  setScopes((current) =>
                    event.target.checked ? [...current, scope] : current.filter((other) => other !== scope),
                  )
                }
              />{' '}
              {scope}
            </label>
          ))}
        </fieldset>
      </ActionForm>
      {shown ? (
        <div className="card" role="status">
          <p>Your new key (shown this once — store it now):</p>
          <code className="new-key">{shown}</code>
        </div>
      ) : null}
      <Feedback error={action.error ?? keys.error} note={action.note} />
      <AdminTable
        caption="Your keys"
        columns={['Name', 'Prefix', 'Scopes', 'Organisation', 'Last used', 'Action']}
      >
        {(keys.value?.keys ?? []).map((key) => (
          <tr key={key.id}>
            <td>{key.name}</td>
            <td>
              <code>{key.prefix}</code>
            </td>
            <td>{key.scopes.join(', ')}</td>
            <td>{key.organizationId}</td>
            <td>{key.lastUsedAt ?? 'never'}</td>
            <td>
              {key.revokedAt ? (
                'revoked'
              ) : (
                <DeleteButton
                  action={action}
                  aria-label={`Revoke ${key.name}`}
                  path={`/v1/keys/${key.id}`}
                  onDeleted={keys.reload}
                  note={`Revoked ${key.name}.`}
                >
                  Revoke
                </DeleteButton>
              )}
            </td>
          </tr>
        ))}
      </AdminTable>
    </div>
  );
}
