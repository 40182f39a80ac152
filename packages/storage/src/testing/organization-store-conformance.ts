import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import type { Storage } from '../storage.ts';
import { StorageError } from '../storage-error.ts';

/**
 * Registers the organisation store's conformance tests against one backend: `open` gives a fresh, migrated, empty
 * storage (closed by the suite). Every `Storage` implementation runs the same cases.
 */
export function describeOrganizationStoreConformance(backend: string, open: () => Promise<Storage>): void {
  describe(`organisations (${backend})`, () => {
    let storage: Storage;
    before(async () => {
      storage = await open();
    });
    after(async () => {
      await storage.close();
    });

    test('the default organisation exists; a new user joins it (an admin as admin)', async () => {
      const [first] = await storage.organizations.list();
      assert.equal(first?.id, DEFAULT_ORGANIZATION_ID);
      const user = await storage.users.create({ email: 'plain@example.com' });
      const admin = await storage.users.create({ email: 'boss@example.com', role: 'admin' });
      assert.deepEqual(
        (await storage.organizations.members({ userId: user.id })).map((member) => [
          member.organizationId,
          member.role,
        ]),
        [[DEFAULT_ORGANIZATION_ID, 'member']],
      );
      assert.equal(
        (
          await storage.organizations.members({ organizationId: DEFAULT_ORGANIZATION_ID, userId: admin.id })
        )[0]?.role,
        'admin',
      );
    });

    test('create, get, list; a taken name is a conflict', async () => {
      const acme = await storage.organizations.create({ name: 'Acme' });
      assert.deepEqual(await storage.organizations.get(acme.id), acme);
      assert.ok((await storage.organizations.list()).some((organization) => organization.id === acme.id));
      await assert.rejects(
        storage.organizations.create({ name: 'Acme' }),
        (error) => StorageError.isInstance(error) && error.code === 'conflict',
      );
      assert.equal(await storage.organizations.get('no-such-org'), undefined);
    });

    test('a user created in an organisation belongs to it alone; members are set, re-roled and removed', async () => {
      const globex = await storage.organizations.create({ name: 'Globex' });
      const user = await storage.users.create({ email: 'hank@globex.example', organizationId: globex.id });
      assert.deepEqual(
        (await storage.organizations.members({ userId: user.id })).map((member) => member.organizationId),
        [globex.id],
      );
      const other = await storage.users.create({ email: 'marge@example.com' });
      await storage.organizations.setMember({ organizationId: globex.id, userId: other.id, role: 'member' });
      const promoted = await storage.organizations.setMember({
        organizationId: globex.id,
        userId: other.id,
        role: 'admin',
      });
      assert.equal(promoted.role, 'admin');
      assert.deepEqual(
        (await storage.organizations.members({ organizationId: globex.id })).map((member) => [
          member.userId,
          member.role,
        ]),
        [
          [user.id, 'member'],
          [other.id, 'admin'],
        ],
      );
      assert.equal(
        await storage.organizations.removeMember({ organizationId: globex.id, userId: other.id }),
        true,
      );
      assert.equal(
        await storage.organizations.removeMember({ organizationId: globex.id, userId: other.id }),
        false,
      );
      assert.equal(
        (await storage.organizations.members({ organizationId: globex.id, userId: other.id }))[0],
        undefined,
      );
    });

    test('a member of an unknown organisation or an unknown user is not_found; deleting a user drops memberships', async () => {
      const initech = await storage.organizations.create({ name: 'Initech' });
      const user = await storage.users.create({ email: 'peter@initech.example', organizationId: initech.id });
      await assert.rejects(
        storage.organizations.setMember({ organizationId: 'nope', userId: user.id, role: 'member' }),
        (error) => StorageError.isInstance(error) && error.code === 'not_found',
      );
      await assert.rejects(
        storage.organizations.setMember({ organizationId: initech.id, userId: 'nobody', role: 'member' }),
        (error) => StorageError.isInstance(error) && error.code === 'not_found',
      );
      await storage.users.delete(user.id);
      assert.deepEqual(await storage.organizations.members({ organizationId: initech.id }), []);
    });

    test('chats and files record their organisation (default when none is given)', async () => {
      const hooli = await storage.organizations.create({ name: 'Hooli' });
      const user = await storage.users.create({ email: 'gavin@hooli.example', organizationId: hooli.id });
      const inHooli = await storage.chats.create({ userId: user.id, organizationId: hooli.id });
      const unscoped = await storage.chats.create({ userId: user.id });
      assert.equal((await storage.chats.get(inHooli.id))?.organizationId, hooli.id);
      assert.equal(unscoped.organizationId, DEFAULT_ORGANIZATION_ID);
      const file = await storage.files.put({
        userId: user.id,
        organizationId: hooli.id,
        name: 'a.txt',
        mediaType: 'text/plain',
        content: new TextEncoder().encode('hi'),
      });
      assert.equal((await storage.files.get(file.id))?.organizationId, hooli.id);
    });

    test('invitations: by lower-cased email, replaced per organisation, taken once', async () => {
      const pied = await storage.organizations.create({ name: 'Pied Piper' });
      const first = await storage.organizations.invite({
        organizationId: pied.id,
        email: 'Richard@Pied.example',
        role: 'member',
        invitedBy: null,
      });
      const again = await storage.organizations.invite({
        organizationId: pied.id,
        email: 'richard@pied.example',
        role: 'admin',
        invitedBy: null,
      });
      const listed = await storage.organizations.listInvitations('RICHARD@pied.example');
      assert.deepEqual(
        listed.map((invitation) => [invitation.organizationId, invitation.email, invitation.role]),
        [[pied.id, 'richard@pied.example', 'admin']],
      );
      assert.equal(again.id, first.id, 'one invitation per organisation and email');
      assert.equal((await storage.organizations.takeInvitation(first.id))?.role, 'admin');
      assert.equal(await storage.organizations.takeInvitation(first.id), undefined);
      assert.deepEqual(await storage.organizations.listInvitations('richard@pied.example'), []);
      await assert.rejects(
        storage.organizations.invite({
          organizationId: 'nope',
          email: 'x@y',
          role: 'member',
          invitedBy: null,
        }),
        (error: { code?: string }) => error.code === 'not_found',
      );
    });
  });
}
