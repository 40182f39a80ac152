import type { OpenApiAuth } from '@toolbus/spec';
import {
  type Persona,
  type PersonaStore,
  type PersonaToolRow,
  type SearchUsage,
  StorageError,
} from '@toolbus/storage';
import { personaNameKey, personaNameTaken, toolRowColumns, toolRowSource } from '@toolbus/storage/backend';
import {
  isoTime,
  notFound,
  type PostgresContext,
  type Queryable,
  withConstraintErrors,
} from './postgres-context.ts';

interface PersonaRow {
  id: string;
  name: string;
  description: string;
  search_usage: SearchUsage;
  created_at: Date;
}

interface ToolRow {
  id: string;
  persona_id: string;
  position: number;
  built_in_id: string | null;
  openapi_name: string | null;
  openapi_document: string | null;
  openapi_auth_secret: string | null;
  mcp_server_id: string | null;
  mcp_tool_name: string | null;
  created_at: Date;
}

const personaColumns = 'id, name, description, search_usage, created_at';
// The document comes back as JSON text, parsed once by the shared column rules.
const toolColumns = `id, persona_id, position, built_in_id, openapi_name, openapi_document::text AS openapi_document,
  openapi_auth_secret, mcp_server_id, mcp_tool_name, created_at`;

/** Personas and their tool rows over PostgreSQL; OpenAPI auth is sealed per row. */
export function createPostgresPersonaStore(context: PostgresContext): PersonaStore {
  const { pool, secrets } = context;
  const read = async (id: string): Promise<Persona | undefined> => {
    const { rows } = await pool.query<PersonaRow>(`SELECT ${personaColumns} FROM personas WHERE id = $1`, [
      id,
    ]);
    return rows[0] && toPersona(rows[0]);
  };
  const authContext = (rowId: string) => `persona_tools.openapi_auth_secret:${rowId}`;
  const toToolRow = (row: ToolRow): PersonaToolRow => ({
    id: row.id,
    personaId: row.persona_id,
    position: row.position,
    source: toolRowSource(
      {
        builtInId: row.built_in_id,
        openApiName: row.openapi_name,
        openApiDocument: row.openapi_document,
        openApiAuthSecret: row.openapi_auth_secret,
        mcpServerId: row.mcp_server_id,
        mcpToolName: row.mcp_tool_name,
      },
      (sealed) => JSON.parse(secrets.open(sealed, authContext(row.id))) as OpenApiAuth,
    ),
    createdAt: isoTime(row.created_at),
  });

  return {
    async create(persona) {
      const name = persona.name.trim();
      const { rows } = await nameConflicts(pool, name, () =>
        pool.query<PersonaRow>(
          `INSERT INTO personas (id, name, name_key, description, search_usage, created_at)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${personaColumns}`,
          [
            context.newId(),
            name,
            personaNameKey(name),
            persona.description ?? '',
            persona.searchUsage ?? 'auto',
            context.now(),
          ],
        ),
      );
      return toPersona(rows[0]!);
    },
    get: read,
    async list() {
      const { rows } = await pool.query<PersonaRow>(
        `SELECT ${personaColumns} FROM personas ORDER BY created_at, ordinal`,
      );
      return rows.map(toPersona);
    },
    async update(id, changes) {
      const current = await read(id);
      if (!current) throw notFound('Persona', id);
      const name = (changes.name ?? current.name).trim();
      const { rows } = await nameConflicts(pool, name, () =>
        pool.query<PersonaRow>(
          `UPDATE personas SET name = $1, name_key = $2, description = $3, search_usage = $4 WHERE id = $5
           RETURNING ${personaColumns}`,
          [
            name,
            personaNameKey(name),
            changes.description ?? current.description,
            changes.searchUsage ?? current.searchUsage,
            id,
          ],
        ),
      );
      if (!rows[0]) throw notFound('Persona', id);
      return toPersona(rows[0]);
    },
    async delete(id) {
      return ((await pool.query('DELETE FROM personas WHERE id = $1', [id])).rowCount ?? 0) > 0;
    },
    async addToolRow(personaId, source) {
      const id = context.newId();
      const columns = toolRowColumns(source, (auth) => secrets.seal(JSON.stringify(auth), authContext(id)));
      const row = await context.transaction(async (client) => {
        // Locking the persona orders concurrent appends: each sees the position the previous one took.
        const persona = await client.query('SELECT id FROM personas WHERE id = $1 FOR UPDATE', [personaId]);
        if (persona.rowCount === 0) throw notFound('Persona', personaId);
        const { rows } = await withConstraintErrors('Adding a persona tool row', () =>
          client.query<ToolRow>(
            `INSERT INTO persona_tools (id, persona_id, position, built_in_id, openapi_name, openapi_document,
               openapi_auth_secret, mcp_server_id, mcp_tool_name, created_at)
             VALUES ($1, $2, (SELECT COALESCE(MAX(position) + 1, 0) FROM persona_tools WHERE persona_id = $2),
               $3, $4, $5::jsonb, $6, $7, $8, $9)
             RETURNING ${toolColumns}`,
            [
              id,
              personaId,
              columns.builtInId,
              columns.openApiName,
              columns.openApiDocument,
              columns.openApiAuthSecret,
              columns.mcpServerId,
              columns.mcpToolName,
              context.now(),
            ],
          ),
        );
        return rows[0]!;
      });
      return toToolRow(row);
    },
    async listToolRows(personaId) {
      const { rows } = await pool.query<ToolRow>(
        `SELECT ${toolColumns} FROM persona_tools WHERE persona_id = $1 ORDER BY position`,
        [personaId],
      );
      return rows.map(toToolRow);
    },
    async removeToolRow(rowId) {
      return ((await pool.query('DELETE FROM persona_tools WHERE id = $1', [rowId])).rowCount ?? 0) > 0;
    },
  };
}

/** The only unique column a persona write can hit is its name key: its conflict says which name is taken. */
async function nameConflicts<Result>(
  pool: Queryable,
  name: string,
  write: () => Promise<Result>,
): Promise<Result> {
  try {
    return await withConstraintErrors('Writing a persona', write);
  } catch (error) {
    if (StorageError.isInstance(error) && error.code === 'conflict') {
      const { rows } = await pool.query<{ name: string }>('SELECT name FROM personas WHERE name_key = $1', [
        personaNameKey(name),
      ]);
      throw personaNameTaken({ requested: name, taken: rows[0]?.name, cause: error });
    }
    throw error;
  }
}

function toPersona(row: PersonaRow): Persona {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    searchUsage: row.search_usage,
    createdAt: isoTime(row.created_at),
  };
}
