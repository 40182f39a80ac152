// The search index's schema steps, each declared once for both databases (storage's migration runner and its step
// words; recorded in `search_index_migrations`, apart from storage's own steps, so either can move alone). SQLite:
// chunks in an FTS5 table (Porter stemming, Unicode folding) kept by triggers. PostgreSQL: a stored, weighted
// `tsvector` per chunk (title A above body B, English stemming) under a GIN index, in tables named `search_…`, as
// the index may share storage's database. Released, so never edited: append new steps.
import { DEFAULT_ORGANIZATION_ID, type Migration } from '@toolbus/storage';

export const documentIndexMigrations: readonly Migration[] = [
  {
    name: 'documents and chunks with a weighted tsvector under GIN',
    sql: (d) =>
      `${d.lite(`
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
`)}${d.pg(`
CREATE TABLE search_documents (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  source_id text NOT NULL UNIQUE,
  title text NOT NULL,
  link text,
  content_hash text NOT NULL,
  updated_at text,
  indexed_at timestamptz NOT NULL
);
CREATE INDEX search_documents_link ON search_documents (link);
CREATE INDEX search_documents_source_prefix ON search_documents (source_id text_pattern_ops);
CREATE TABLE search_chunks (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  document_id bigint NOT NULL REFERENCES search_documents(id) ON DELETE CASCADE,
  ordinal integer NOT NULL,
  title text NOT NULL,
  content text NOT NULL,
  content_hash text NOT NULL,
  search_vector tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', content), 'B')
  ) STORED
);
CREATE INDEX search_chunks_document ON search_chunks (document_id, ordinal);
CREATE INDEX search_chunks_search_vector ON search_chunks USING GIN (search_vector);
`)}`,
  },
  {
    name: 'documents belong to an organisation and record who indexed them',
    // Existing documents are the default organisation's; a source id is unique per organisation. SQLite cannot
    // change a UNIQUE constraint in place, so there the table is rebuilt (the opener turns foreign keys off while
    // steps run, so the chunks survive the old table's drop).
    sql: (d) =>
      `${d.lite(`
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
`)}${d.pg(`
ALTER TABLE search_documents ADD COLUMN organization_id text NOT NULL DEFAULT '${DEFAULT_ORGANIZATION_ID}';
ALTER TABLE search_documents ADD COLUMN uploaded_by text;
ALTER TABLE search_documents DROP CONSTRAINT search_documents_source_id_key;
ALTER TABLE search_documents ADD CONSTRAINT search_documents_organization_source UNIQUE (organization_id, source_id);
DROP INDEX search_documents_link;
DROP INDEX search_documents_source_prefix;
CREATE INDEX search_documents_link ON search_documents (organization_id, link);
CREATE INDEX search_documents_source_prefix ON search_documents (organization_id, source_id text_pattern_ops);
`)}`,
  },
];
