import type { DatabaseSync } from 'node:sqlite';
import { ToolbusError } from '@toolbus/spec';
import { DEFAULT_ORGANIZATION_ID } from '@toolbus/storage';

/** The newest schema of the search index this code knows. */
const schemaVersion = 2;

// The index's schema steps, in order (PRAGMA user_version is the last applied). Append; never rewrite.
const indexMigrations: readonly string[] = [
  `
    CREATE TABLE documents (
      id INTEGER PRIMARY KEY,
      source_id TEXT NOT NULL UNIQUE,
      title TEXT NOT NULL,
      link TEXT,
      content_hash TEXT NOT NULL,
      updated_at TEXT,
      indexed_at TEXT NOT NULL
    );
    CREATE INDEX documents_link ON documents(link);
    CREATE TABLE chunks (
      id INTEGER PRIMARY KEY,
      document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
      ordinal INTEGER NOT NULL,
      title TEXT NOT NULL,
      content TEXT NOT NULL,
      content_hash TEXT NOT NULL
    );
    CREATE INDEX chunks_document ON chunks(document_id);
    CREATE VIRTUAL TABLE chunks_fts USING fts5(
      title, content, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER chunks_after_insert AFTER INSERT ON chunks BEGIN
      INSERT INTO chunks_fts(rowid, title, content) VALUES (new.id, new.title, new.content);
    END;
    CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
      INSERT INTO chunks_fts(chunks_fts, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
    END;
  `,
  // Documents belong to an organisation (existing ones to the default one) and record who indexed them; a source
  // id is unique per organisation. SQLite cannot change a UNIQUE constraint in place, so the table is rebuilt
  // (with foreign keys off, so the chunks survive the old table's drop).
  `
    CREATE TABLE documents_by_organization (
      id INTEGER PRIMARY KEY,
      organization_id TEXT NOT NULL DEFAULT '${DEFAULT_ORGANIZATION_ID}',
      source_id TEXT NOT NULL,
      title TEXT NOT NULL,
      link TEXT,
      content_hash TEXT NOT NULL,
      updated_at TEXT,
      indexed_at TEXT NOT NULL,
      uploaded_by TEXT,
      UNIQUE (organization_id, source_id)
    );
    INSERT INTO documents_by_organization (id, source_id, title, link, content_hash, updated_at, indexed_at)
      SELECT id, source_id, title, link, content_hash, updated_at, indexed_at FROM documents;
    DROP TABLE documents;
    ALTER TABLE documents_by_organization RENAME TO documents;
    CREATE INDEX documents_link ON documents(organization_id, link);
  `,
];

/**
 * Brings an index file's schema up to {@link schemaVersion}, one step per transaction; a file written by a newer
 * toolbus is refused (`index_schema_too_new`) rather than misread.
 */
export function migrateDocumentIndex(db: DatabaseSync): void {
  const version = (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
  if (version > schemaVersion) {
    throw new ToolbusError({
      code: 'index_schema_too_new',
      message: `The search index was written by a newer toolbus (schema ${version}; this one knows ${schemaVersion}).`,
    });
  }
  // Foreign keys are off while the schema changes (they are turned on after): a rebuilt table's drop must not
  // cascade to its chunks.
  db.exec('PRAGMA foreign_keys = OFF;');
  for (let step = version; step < schemaVersion; step += 1) {
    db.exec('BEGIN');
    try {
      db.exec(`${indexMigrations[step]} PRAGMA user_version = ${step + 1};`);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }
}
