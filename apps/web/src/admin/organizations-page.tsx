import type { memberSchema, organizationSchema } from '@toolbus/api-schema';
import type { WireShape } from '@toolbus/client';
import { useState } from 'react';
import { ActionButton } from '../common/action-button.tsx';
import { ActionForm } from '../common/action-form.tsx';
import { AdminTable } from '../common/admin-table.tsx';
import { client } from '../common/api.ts';
import { DeleteButton } from '../common/delete-button.tsx';
import { Feedback } from '../common/feedback.tsx';
import { useAction, useLoad } from '../common/use-load.ts';

type OrganizationView = WireShape<typeof organizationSchema>;
type MemberView = WireShape<typeof memberSchema>;

function Members(props: { readonly organization: OrganizationView }) {
  const base = `/v1/organizations/${encodeURIComponent(props.organization.id)}/members`;
  const members = useLoad(() => client.request<{ members: MemberView[] }>('GET', base), [base]);
  const action = useAction();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'admin' | 'member'>('member');
  return (
    <section className="card" aria-labelledby={`organization-${props.organization.id}`}>
      <h3 id={`organization-${props.organization.id}`}>{props.organization.name}</h3>
      <ActionForm
        action={action}
        className="inline-form"
        submit="Add member"
        onSubmit={async () => {
          const answer = await client.request<{ invited?: boolean }>('POST', base, {
            body: { email, role },
          });
          setEmail('');
          members.reload();
          // An organisation admin invites: the person joins when they accept.
          return answer?.invited === true
            ? `Invited ${email} to ${props.organization.name}.`
            : `Added ${email} to ${props.organization.name}.`;
        }}
      >
        <label>
          Member email{' '}
          <input type="email" value={email} onChange={(event) => setEmail(event.target.value)} required />
        </label>
        <label>
          Role{' '}
          <select value={role} onChange={(event) => setRole(event.target.value as 'admin' | 'member')}>
            <option value="member">member</option>
            <option value="admin">admin</option>
          </select>
        </label>
      </ActionForm>
      <AdminTable caption={`Members of ${props.organization.name}`} columns={['Email', 'Role', 'Actions']}>
        {(members.value?.members ?? []).map((member) => (
          <tr key={member.userId}>
            <td>{member.email}</td>
            <td>{member.role}</td>
            <td>
              <ActionButton
                action={action}
                run={async () => {
                  const next = member.role === 'admin' ? 'member' : 'admin';
                  await client.request('PATCH', `${base}/${encodeURIComponent(member.userId)}`, {
                    body: { role: next },
                  });
                  members.reload();
                  return `${member.email} is now ${next}.`;
                }}
              >
                Make {member.email} {member.role === 'admin' ? 'member' : 'admin'}
              </ActionButton>{' '}
              <DeleteButton
                action={action}
                path={`${base}/${encodeURIComponent(member.userId)}`}
                onDeleted={members.reload}
                note={`Removed ${member.email}.`}
              >
                Remove {member.email}
              </DeleteButton>
            </td>
          </tr>
        ))}
      </AdminTable>
      <Feedback error={action.error ?? members.error} note={action.note} />
    </section>
  );
}

/**
 * Organisations: a deployment admin creates them; each organisation's admins (and deployment admins) add members
 * by email, change their role and remove them.
 */
export function OrganizationsPage(props: { readonly canCreate: boolean }) {
  const list = useLoad(
    () => client.request<{ organizations: OrganizationView[] }>('GET', '/v1/organizations'),
    [],
  );
  const action = useAction();
  const [name, setName] = useState('');
  const administered = (list.value?.organizations ?? []).filter(
    (organization) => props.canCreate || organization.role === 'admin',
  );
  return (
    <div>
      <h1>Organisations</h1>
      {props.canCreate ? (
        <ActionForm
          action={action}
          className="inline-form"
          submit="Create organisation"
          onSubmit={async () => {
            await client.request('POST', '/v1/admin/organizations', { body: { name } });
            setName('');
            list.reload();
            return `Created ${name}.`;
          }}
        >
          <label>
            Organisation name{' '}
            <input value={name} onChange={(event) => setName(event.target.value)} required />
          </label>
        </ActionForm>
      ) : null}
      <Feedback error={action.error ?? list.error} note={action.note} />
      {administered.map((organization) => (
        <Members key={organization.id} organization={organization} />
      ))}
    </div>
  );
}
