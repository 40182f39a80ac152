import type { OpenApiAuth } from '@toolbus/spec';
import type { PersonaToolRow } from '../persona.ts';
import { personaNameKey } from '../rules/persona-name.ts';
import { toolRowColumns, toolRowSource } from '../rules/tool-row-columns.ts';
import { camelColumns } from '../sql/camel-columns.ts';
import type { StorageSchema } from '../sql/storage-schema.ts';
import {
  deleteRows,
  isKeyTaken,
  notFound,
  type StoreContext,
  withStoreConstraintErrors,
} from '../sql/store-context.ts';
import type { PersonaStore } from '../storage.ts';
import { StorageError } from '../storage-error.ts';
import { sealedColumn } from './sealed-column.ts';

const personaColumns = camelColumns('id', 'name', 'description', 'search_usage', 'created_at');

/** Personas and their tool rows; OpenAPI auth is sealed per row. */
export function createPersonaStore(context: StoreContext): PersonaStore {
  const { db, secrets } = context;
  const personas = () => db.selectFrom('personas').select(personaColumns);
  const auth = sealedColumn<OpenApiAuth>(secrets, 'persona_tools.openapi_auth_secret');
  const toToolRow = (row: StorageSchema['persona_tools']): PersonaToolRow => ({
    id: row.id,
    personaId: row.persona_id,
    position: row.position,
    source: toolRowSource(row, (sealed) => auth.open(row.id, sealed)),
    createdAt: row.created_at,
  });
  // A persona write's one unique column is its name key: the `conflict` names the stored persona as it is spelled.
  const nameConflicts = async <Row>(name: string, write: () => Promise<Row>) => {
    try {
      return await write();
    } catch (error) {
      if (!isKeyTaken(error)) throw error;
      const row = await personas().where('name_key', '=', personaNameKey(name)).executeTakeFirst();
      const taken = row?.name ?? name;
      const asked = taken === name ? '' : ` ("${name}" is the same name)`;
      throw new StorageError({
        code: 'conflict',
        message: `A persona named "${taken}" already exists${asked}; persona names are unique, ignoring case and surrounding spaces.`,
        cause: error,
      });
    }
  };

  return withStoreConstraintErrors('personas', {
    async create(persona) {
      const name = persona.name.trim();
      return nameConflicts(name, () =>
        db
          .insertInto('personas')
          .values({
            id: context.newId(),
            name,
            name_key: personaNameKey(name),
            description: persona.description ?? '',
            search_usage: persona.searchUsage ?? 'auto',
            created_at: context.now(),
          })
          .returning(personaColumns)
          .executeTakeFirstOrThrow(),
      );
    },
    async get(id) {
      return personas().where('id', '=', id).executeTakeFirst();
    },
    async list() {
      return personas().orderBy(context.oldestFirst).execute();
    },
    async update(id, changes) {
      const name = changes.name?.trim();
      // Only the given fields change, in one statement: a concurrent update of another field is not undone.
      const write = () =>
        db
          .updateTable('personas')
          .set((eb) => ({
            name: name ?? eb.ref('name'),
            name_key: name === undefined ? eb.ref('name_key') : personaNameKey(name),
            description: changes.description ?? eb.ref('description'),
            search_usage: changes.searchUsage ?? eb.ref('search_usage'),
          }))
          .where('id', '=', id)
          .returning(personaColumns)
          .executeTakeFirstOrThrow(() => notFound('Persona', id));
      return name === undefined ? write() : nameConflicts(name, write);
    },
    async delete(id) {
      return deleteRows(db, 'personas', { id });
    },
    async addToolRow(personaId, source) {
      const id = context.newId();
      const columns = toolRowColumns(source, (value) => auth.seal(id, value));
      const row = await context.transaction(async (trx) => {
        // Locking the persona orders concurrent appends: each sees the position the previous one took.
        const persona = await context
          .locked(trx.selectFrom('personas').select('id').where('id', '=', personaId))
          .executeTakeFirst();
        if (persona === undefined) throw notFound('Persona', personaId);
        const { last } = await trx
          .selectFrom('persona_tools')
          .select((eb) => eb.fn.max('position').as('last'))
          .where('persona_id', '=', personaId)
          .executeTakeFirstOrThrow();
        return trx
          .insertInto('persona_tools')
          .values({
            id,
            persona_id: personaId,
            position: last === null ? 0 : Number(last) + 1,
            ...columns,
            created_at: context.now(),
          })
          .returningAll()
          .executeTakeFirstOrThrow();
      });
      return toToolRow(row);
    },
    async listToolRows(personaId) {
      const rows = await db
        .selectFrom('persona_tools')
        .selectAll()
        .where('persona_id', '=', personaId)
        .orderBy('position')
        .execute();
      return rows.map(toToolRow);
    },
    async removeToolRow(rowId) {
      return deleteRows(db, 'persona_tools', { id: rowId });
    },
  });
}
