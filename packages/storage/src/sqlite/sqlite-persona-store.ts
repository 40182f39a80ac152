import type { OpenApiAuth } from '@toolbus/spec';
import type { Persona, PersonaToolRow } from '../persona.ts';
import { personaNameKey, personaNameTaken } from '../rules/persona-name.ts';
import { toolRowColumns, toolRowSource } from '../rules/tool-row-columns.ts';
import type { PersonaStore } from '../storage.ts';
import { StorageError } from '../storage-error.ts';
import type { SearchUsage } from '../user.ts';
import { inTransaction, notFound, type SqliteContext, withConstraintErrors } from './sqlite-context.ts';

interface PersonaRow {
  id: string;
  name: string;
  description: string;
  search_usage: SearchUsage;
  created_at: string;
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
  created_at: string;
}

/** Personas and their tool rows over SQLite; OpenAPI auth is sealed per row. */
export function createSqlitePersonaStore(context: SqliteContext): PersonaStore {
  const { database, secrets } = context;
  const insert = database.prepare(
    'INSERT INTO personas (id, name, name_key, description, search_usage, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const selectById = database.prepare('SELECT * FROM personas WHERE id = ?');
  const selectAll = database.prepare('SELECT * FROM personas ORDER BY created_at, rowid');
  const update = database.prepare(
    'UPDATE personas SET name = ?, name_key = ?, description = ?, search_usage = ? WHERE id = ?',
  );
  const deleteById = database.prepare('DELETE FROM personas WHERE id = ?');
  const selectNameByKey = database.prepare('SELECT name FROM personas WHERE name_key = ?');
  const takenName = (key: string) => (selectNameByKey.get(key) as { name: string } | undefined)?.name;
  const nextPosition = database.prepare(
    'SELECT COALESCE(MAX(position) + 1, 0) AS position FROM persona_tools WHERE persona_id = ?',
  );
  const insertTool = database.prepare(`INSERT INTO persona_tools
    (id, persona_id, position, built_in_id, openapi_name, openapi_document, openapi_auth_secret, mcp_server_id,
     mcp_tool_name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const selectTool = database.prepare('SELECT * FROM persona_tools WHERE id = ?');
  const selectTools = database.prepare('SELECT * FROM persona_tools WHERE persona_id = ? ORDER BY position');
  const deleteTool = database.prepare('DELETE FROM persona_tools WHERE id = ?');

  const read = (id: string): Persona | undefined => {
    const row = selectById.get(id) as PersonaRow | undefined;
    return row && toPersona(row);
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
    createdAt: row.created_at,
  });

  return {
    async create(persona) {
      const id = context.newId();
      const name = persona.name.trim();
      nameConflicts(
        name,
        () =>
          withConstraintErrors('Creating a persona', () =>
            insert.run(
              id,
              name,
              personaNameKey(name),
              persona.description ?? '',
              persona.searchUsage ?? 'auto',
              context.now(),
            ),
          ),
        takenName,
      );
      return read(id)!;
    },
    async get(id) {
      return read(id);
    },
    async list() {
      return (selectAll.all() as unknown as PersonaRow[]).map(toPersona);
    },
    async update(id, changes) {
      const current = read(id);
      if (!current) throw notFound('Persona', id);
      const name = (changes.name ?? current.name).trim();
      nameConflicts(
        name,
        () =>
          withConstraintErrors('Updating a persona', () =>
            update.run(
              name,
              personaNameKey(name),
              changes.description ?? current.description,
              changes.searchUsage ?? current.searchUsage,
              id,
            ),
          ),
        takenName,
      );
      return read(id)!;
    },
    async delete(id) {
      return Number(deleteById.run(id).changes) > 0;
    },
    async addToolRow(personaId, source) {
      const id = context.newId();
      const columns = toolRowColumns(source, (auth) => secrets.seal(JSON.stringify(auth), authContext(id)));
      inTransaction(database, () => {
        if (!selectById.get(personaId)) throw notFound('Persona', personaId);
        const { position } = nextPosition.get(personaId) as { position: number };
        withConstraintErrors('Adding a persona tool row', () =>
          insertTool.run(
            id,
            personaId,
            position,
            columns.builtInId,
            columns.openApiName,
            columns.openApiDocument,
            columns.openApiAuthSecret,
            columns.mcpServerId,
            columns.mcpToolName,
            context.now(),
          ),
        );
      });
      return toToolRow(selectTool.get(id) as unknown as ToolRow);
    },
    async listToolRows(personaId) {
      return (selectTools.all(personaId) as unknown as ToolRow[]).map(toToolRow);
    },
    async removeToolRow(rowId) {
      return Number(deleteTool.run(rowId).changes) > 0;
    },
  };
}

/** The only unique column a persona write can hit is its name key: its conflict says which name is taken. */
function nameConflicts(
  name: string,
  write: () => unknown,
  takenName: (key: string) => string | undefined,
): void {
  try {
    write();
  } catch (error) {
    if (StorageError.isInstance(error) && error.code === 'conflict') {
      throw personaNameTaken({ requested: name, taken: takenName(personaNameKey(name)), cause: error });
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
    createdAt: row.created_at,
  };
}
