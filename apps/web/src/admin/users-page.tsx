import type { userSchema } from '@toolbus/api-schema';
import type { WireShape } from '@toolbus/client';
import { useState } from 'react';
import { ActionForm } from '../common/action-form.tsx';
import { client } from '../common/api.ts';
import { Feedback } from '../common/feedback.tsx';
import { useAction, useLoad } from '../common/use-load.ts';

type UserView = WireShape<typeof userSchema>;

/** Users (admin): add one with a first key (shown once), change roles. */
export function UsersPage() {
  const users = useLoad(() => client.request<{ users: UserView[] }>('GET', '/v1/admin/users'), []);
  const action = useAction();
  const [email, setEmail] = useState('');
  const [shown, setShown] = useState<string | undefined>();
  return (
    <div>
      <h1>Users</h1>
      <ActionForm
        action={action}
        className="inline-form"
        submit="Add user"
        onSubmit={async () => {
          const user = await client.request<UserView>('POST', '/v1/admin/users', { body: { email } });
          const created = await client.request<{ key: string }>('POST', `/v1/admin/users/${user.id}/keys`, {
            body: { name: 'first key' },
          });
          setShown(created.key);
          setEmail('');
          users.reload();
        }}
      >
        <label>
          Email{' '}
          <input type="email" value={email} onChange={(event) => setEmail(event.target.value)} required />
        </label>
      </ActionForm>
      {shown ? (
        <div className="card" role="status">
          <p>Their key (shown this once):</p>
          <code className="new-key">{shown}</code>
        </div>
      ) : null}
      <Feedback error={action.error ?? users.error} note={action.note} />
      <ul>
        {(users.value?.users ?? []).map((user) => (
          <li key={user.id}>
            {user.email} · {user.role}
          </li>
        ))}
      </ul>
    </div>
  );
}
