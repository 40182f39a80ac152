import type { Kysely } from 'kysely';
import { deleteRows, type StoreContext, upsert, withStoreConstraintErrors } from '../sql/store-context.ts';
import type { UserSecretKey, UserSecretKind, UserSecretKinds, UserSecretStore } from '../user-secrets.ts';
import { sealedColumn } from './sealed-column.ts';

/** Each kind's table (one sealed value per owner and user) and its columns. */
const tables = {
  mcpOAuth: { table: 'mcp_oauth_states', owner: 'server_id', secret: 'state_secret' },
  mcpHeaderValues: { table: 'mcp_user_credentials', owner: 'server_id', secret: 'values_secret' },
  connectedAppValues: { table: 'connected_app_user_values', owner: 'app_id', secret: 'values_secret' },
} as const satisfies Record<UserSecretKind, { table: string; owner: string; secret: string }>;
type SealedTable = (typeof tables)[UserSecretKind]['table'];

/**
 * The one way the sealed per-user tables are read and written. A value is sealed with its table, column, owner and
 * user as context, so a value copied into another row does not open.
 */
export function createUserSecretStore(context: StoreContext): UserSecretStore {
  // The tables have one shape under different column names: typed here as rows of named columns.
  const db = context.db as unknown as Kysely<Record<SealedTable, Record<string, string | number>>>;
  const at = <Kind extends UserSecretKind>(key: UserSecretKey<Kind>) => {
    const { table, owner, secret } = tables[key.kind];
    const column = sealedColumn<UserSecretKinds[Kind]['value']>(context.secrets, `${table}.${secret}`);
    const sealedRow = `${key.ownerId}:${key.userId}`;
    return { table, owner, secret, column, sealedRow, row: { [owner]: key.ownerId, user_id: key.userId } };
  };
  return withStoreConstraintErrors('userSecrets', {
    async get(key) {
      const { table, secret, column, sealedRow, row } = at(key);
      const found = await db
        .selectFrom(table)
        .select(secret)
        .where((eb) => eb.and(row))
        .executeTakeFirst();
      return found && column.open(sealedRow, String(found[secret]));
    },
    async set({ value, ...key }) {
      const { table, secret, column, sealedRow, row } = at(key);
      await upsert(context.db, table, row, {
        [secret]: column.seal(sealedRow, value),
        updated_at: context.now(),
      });
    },
    async delete(key) {
      const { table, row } = at(key);
      return deleteRows(context.db, table, row);
    },
  });
}
