import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import type { Storage } from '../storage.ts';
import { isStorageErrorCode as isCode } from './is-storage-error-code.ts';
import type { StorageBackendUnderTest } from './storage-backend-under-test.ts';
import { storagePerTest } from './storage-per-test.ts';

/** Users, personas and tool rows, memories, uploaded files and settings, on any backend. */
export function describeStoreConformance(backend: StorageBackendUnderTest): void {
  describe('stores', () => {
    const storage = storagePerTest(backend);
    describeUsers(storage);
    describePersonas(storage);
    describeMemories(storage);
    describeUploadedFiles(storage);
    describeSettings(storage);
  });
}

function describeUsers(storage: () => Storage): void {
  describe('users', () => {
    test('create, read by id and email, update settings partially, delete', async () => {
      const user = await storage().users.create({ email: 'ada@example.com', name: 'Ada' });
      assert.deepEqual(user.settings, { memoryToolEnabled: false, searchUsage: 'auto' });
      assert.equal((await storage().users.get({ email: 'ada@example.com' }))?.id, user.id);
      const updated = await storage().users.update(user.id, { settings: { memoryToolEnabled: true } });
      assert.deepEqual(updated.settings, { memoryToolEnabled: true, searchUsage: 'auto' });
      const forced = await storage().users.update(user.id, { settings: { searchUsage: 'enabled' } });
      assert.deepEqual(forced.settings, { memoryToolEnabled: true, searchUsage: 'enabled' });
      const both = await storage().users.update(user.id, {
        role: 'admin',
        settings: { memoryToolEnabled: false },
      });
      assert.deepEqual(
        [both.role, both.settings],
        ['admin', { memoryToolEnabled: false, searchUsage: 'enabled' }],
      );
      assert.deepEqual(await storage().users.get(user.id), both);
      assert.equal(await storage().users.delete(user.id), true);
      assert.equal(await storage().users.get(user.id), undefined);
      assert.equal(await storage().users.delete(user.id), false);
    });

    test('a second user with the same email is a conflict; unknown ids are not_found', async () => {
      await storage().users.create({ email: 'x@example.com' });
      await assert.rejects(storage().users.create({ email: 'x@example.com' }), isCode('conflict'));
      await assert.rejects(
        storage().users.update('missing', { settings: { memoryToolEnabled: true } }),
        isCode('not_found'),
      );
    });

    test('an invalid search usage value is refused by the schema', async () => {
      const user = await storage().users.create({ email: 'y@example.com' });
      await assert.rejects(
        storage().users.update(user.id, { settings: { searchUsage: 'always' as 'auto' } }),
        isCode('invalid_input'),
      );
    });

    test('concurrent updates of different fields both hold', async () => {
      const user = await storage().users.create({ email: 'z@example.com' });
      await Promise.all([
        storage().users.update(user.id, { role: 'admin' }),
        storage().users.update(user.id, { settings: { searchUsage: 'enabled' } }),
      ]);
      const stored = await storage().users.get(user.id);
      assert.deepEqual(
        [stored?.role, stored?.settings],
        ['admin', { memoryToolEnabled: false, searchUsage: 'enabled' }],
      );
    });
  });
}

function describePersonas(storage: () => Storage): void {
  describe('personas and tool rows', () => {
    test('rows keep their order and source; OpenAPI auth round-trips', async () => {
      const persona = await storage().personas.create({ name: 'Helper', searchUsage: 'disabled' });
      const server = await storage().mcpServers.create({
        name: 'files',
        endpoint: { transport: 'stdio', command: 'npx', args: ['server'] },
        authType: 'none',
      });
      const document = { openapi: '3.1.0', info: { title: 'Pets', version: '1' }, paths: {} };
      await storage().personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'SearchTool' });
      await storage().personas.addToolRow(persona.id, {
        kind: 'openapi',
        name: 'Pets',
        document,
        auth: { type: 'api-key', in: 'query', name: 'key', value: 'k1' },
      });
      const mcpRow = await storage().personas.addToolRow(persona.id, {
        kind: 'mcp',
        serverId: server.id,
        toolName: 'read',
      });
      const rows = await storage().personas.listToolRows(persona.id);
      assert.deepEqual(
        rows.map((row) => [row.position, row.source]),
        [
          [0, { kind: 'built-in', builtInId: 'SearchTool' }],
          [
            1,
            {
              kind: 'openapi',
              name: 'Pets',
              document,
              auth: { type: 'api-key', in: 'query', name: 'key', value: 'k1' },
            },
          ],
          [2, { kind: 'mcp', serverId: server.id, toolName: 'read' }],
        ],
      );
      assert.equal(await storage().personas.removeToolRow(mcpRow.id), true);
      assert.equal((await storage().personas.listToolRows(persona.id)).length, 2);
      assert.equal((await storage().personas.get(persona.id))?.searchUsage, 'disabled');
    });

    test('a row pointing at a missing MCP server or persona is refused; deleting a persona deletes its rows', async () => {
      const persona = await storage().personas.create({ name: 'P' });
      await assert.rejects(
        storage().personas.addToolRow(persona.id, { kind: 'mcp', serverId: 'nope', toolName: 't' }),
        isCode('invalid_input'),
      );
      await assert.rejects(
        storage().personas.addToolRow('nope', { kind: 'built-in', builtInId: 'SearchTool' }),
        isCode('not_found'),
      );
      await assert.rejects(
        storage().personas.addToolRow(persona.id, { kind: 'openapi', name: 'x', document: 'not an object' }),
        isCode('invalid_input'),
      );
      await storage().personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'WebSearchTool' });
      const updated = await storage().personas.update(persona.id, { description: 'new' });
      assert.deepEqual([updated.name, updated.description, updated.searchUsage], ['P', 'new', 'auto']);
      // Only the given fields change: the description stays as the last update left it.
      const renamed = await storage().personas.update(persona.id, { name: ' Q ', searchUsage: 'disabled' });
      assert.deepEqual([renamed.name, renamed.description, renamed.searchUsage], ['Q', 'new', 'disabled']);
      for (const changes of [{ description: 'x' }, { name: 'R' }]) {
        await assert.rejects(storage().personas.update('missing', changes), isCode('not_found'));
      }
      assert.deepEqual(
        (await storage().personas.list()).map((item) => item.id),
        [persona.id],
      );
      await storage().personas.delete(persona.id);
      assert.deepEqual(await storage().personas.listToolRows(persona.id), []);
    });

    test('persona names are unique ignoring case and surrounding spaces: create and rename are conflicts', async () => {
      const support = await storage().personas.create({ name: '  Support ' });
      assert.equal(support.name, 'Support', 'the name is stored trimmed');
      // The conflict names the stored persona as it is spelled (the one to pick), then the spelling asked for.
      const taken = (error: unknown) =>
        isCode('conflict')(error) &&
        /^A persona named "Support" already exists \("support" is the same name\); persona names are unique/.test(
          (error as Error).message,
        );
      await assert.rejects(storage().personas.create({ name: ' support ' }), taken);
      const other = await storage().personas.create({ name: 'Research' });
      await assert.rejects(
        storage().personas.update(other.id, { name: ' SUPPORT' }),
        (error: unknown) =>
          isCode('conflict')(error) &&
          /^A persona named "Support" already exists/.test((error as Error).message),
      );
      await assert.rejects(storage().personas.create({ name: 'Support' }), (error: unknown) =>
        /^A persona named "Support" already exists; /.test((error as Error).message),
      );
      assert.equal((await storage().personas.get(other.id))?.name, 'Research');
      // Renaming a persona to its own name in another case is no conflict.
      assert.equal((await storage().personas.update(support.id, { name: 'support' })).name, 'support');
      assert.deepEqual((await storage().personas.list()).map((persona) => persona.name).sort(), [
        'Research',
        'support',
      ]);
      // A deleted persona's name is free again.
      await storage().personas.delete(other.id);
      assert.equal((await storage().personas.create({ name: 'research' })).name, 'research');
    });

    test('deleting an MCP server removes the persona rows that used it', async () => {
      const persona = await storage().personas.create({ name: 'P' });
      const server = await storage().mcpServers.create({
        name: 'gone',
        endpoint: { transport: 'sse', url: 'http://127.0.0.1:9/sse' },
        authType: 'none',
      });
      await storage().personas.addToolRow(persona.id, { kind: 'mcp', serverId: server.id, toolName: 't' });
      await storage().mcpServers.delete(server.id);
      assert.deepEqual(await storage().personas.listToolRows(persona.id), []);
    });
  });
}

function describeMemories(storage: () => Storage): void {
  describe('memories', () => {
    test('oldest first; adding past the cap deletes the oldest; update and delete', async () => {
      const user = await storage().users.create({ email: 'm@example.com' });
      for (const text of ['one', 'two', 'three']) {
        await storage().memories.add({ userId: user.id, text, maxPerUser: 3 });
      }
      await storage().memories.add({ userId: user.id, text: 'four', maxPerUser: 3 });
      const memories = await storage().memories.list(user.id);
      assert.deepEqual(
        memories.map((memory) => memory.text),
        ['two', 'three', 'four'],
      );
      const updated = await storage().memories.update(memories[0]!.id, 'TWO');
      assert.equal(updated.text, 'TWO');
      assert.equal(await storage().memories.delete(updated.id), true);
      assert.deepEqual(
        (await storage().memories.list(user.id)).map((memory) => memory.text),
        ['three', 'four'],
      );
      await assert.rejects(storage().memories.update('missing', 'x'), isCode('not_found'));
      await assert.rejects(storage().memories.add({ userId: 'nobody', text: 'x' }), isCode('invalid_input'));
      await assert.rejects(
        storage().memories.add({ userId: user.id, text: 'x', maxPerUser: 0 }),
        isCode('invalid_input'),
      );
    });

    test('a memory belongs to one organisation: listed and capped only there; default the default one', async () => {
      const user = await storage().users.create({ email: 'mo@example.com' });
      const acme = await storage().organizations.create({ name: 'Memories Acme' });
      const plain = await storage().memories.add({ userId: user.id, text: 'default org' });
      assert.equal(plain.organizationId, DEFAULT_ORGANIZATION_ID);
      const inAcme = await storage().memories.add({
        userId: user.id,
        organizationId: acme.id,
        text: 'acme one',
      });
      assert.equal(inAcme.organizationId, acme.id);
      assert.deepEqual(
        (await storage().memories.list(user.id)).map((memory) => memory.text),
        ['default org'],
      );
      assert.deepEqual(
        (await storage().memories.list(user.id, DEFAULT_ORGANIZATION_ID)).map((memory) => memory.text),
        ['default org'],
      );
      // The cap counts the organisation's memories only: adding in Acme never evicts the default one's.
      await storage().memories.add({
        userId: user.id,
        organizationId: acme.id,
        text: 'acme two',
        maxPerUser: 1,
      });
      assert.deepEqual(
        (await storage().memories.list(user.id, acme.id)).map((memory) => [
          memory.text,
          memory.organizationId,
        ]),
        [['acme two', acme.id]],
      );
      assert.deepEqual(
        (await storage().memories.list(user.id)).map((memory) => memory.text),
        ['default org'],
      );
      assert.deepEqual(await storage().memories.list(user.id, 'no-such-org'), []);
    });
  });
}

function describeUploadedFiles(storage: () => Storage): void {
  describe('uploaded files', () => {
    test('bytes and metadata round-trip; listing is per user; delete removes the bytes', async () => {
      const user = await storage().users.create({ email: 'f@example.com' });
      const other = await storage().users.create({ email: 'g@example.com' });
      const content = new Uint8Array([0, 1, 2, 255, 10]);
      const file = await storage().files.put({
        userId: user.id,
        name: 'a.bin',
        mediaType: 'application/octet-stream',
        content,
      });
      await storage().files.put({
        userId: other.id,
        name: 'b.txt',
        mediaType: 'text/plain',
        content: new Uint8Array([65]),
      });
      assert.equal(file.sizeBytes, 5);
      assert.equal(file.sha256, createHash('sha256').update(content).digest('hex'));
      assert.deepEqual(await storage().files.readContent(file.id), content);
      assert.deepEqual(
        (await storage().files.listForUser(user.id)).map((item) => item.name),
        ['a.bin'],
      );
      assert.equal(await storage().files.delete(file.id), true);
      assert.equal(await storage().files.readContent(file.id), undefined);
      assert.equal(await storage().files.get(file.id), undefined);
    });
  });
}

function describeSettings(storage: () => Storage): void {
  describe('settings', () => {
    test('JSON values by key: set, replace, read, delete', async () => {
      assert.equal(await storage().settings.get('ssrf'), undefined);
      await storage().settings.set('ssrf', { level: 'strict' });
      await storage().settings.set('ssrf', { level: 'permissive', allow: ['127.0.0.1'] });
      assert.deepEqual(await storage().settings.get('ssrf'), { level: 'permissive', allow: ['127.0.0.1'] });
      assert.equal(await storage().settings.delete('ssrf'), true);
      assert.equal(await storage().settings.get('ssrf'), undefined);
      await assert.rejects(storage().settings.set('bad', undefined), isCode('invalid_input'));
    });
  });
}
