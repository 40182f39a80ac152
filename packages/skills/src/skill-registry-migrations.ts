// The skill registry's schema steps, run by storage's migration runner and recorded in `skill_registry_migrations`,
// apart from storage's and the search index's steps, so each can move alone on a shared database. Each step is
// declared once for both databases with storage's step words; SQLite's text of step 1 is the released one, kept
// as it was. On PostgreSQL (where the registry shares storage's database) the skills' bundles live in the database
// too (`toolbus_skill_blobs`, the SQL blob store); on SQLite they stay in the blob folder. Released, so never
// edited: append new steps.
import type { Migration } from '@toolbus/storage';

export const skillRegistryMigrations: readonly Migration[] = [
  {
    name: 'skills: one row per ingested skill, its bundle in the blob store',
    // Release 1b61ff76 ran this statement as its version 1 (then recorded in `toolbus_skills_migrations`).
    // PostgreSQL's words came later, with the registry on PostgreSQL: step 1 there makes both of its tables.
    sql: (d) =>
      `${d.lite(`CREATE TABLE toolbus_skills (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     description TEXT NOT NULL,
     front_matter TEXT NOT NULL,
     sha256 TEXT NOT NULL,
     blob_key TEXT NOT NULL,
     total_bytes INTEGER NOT NULL,
     file_count INTEGER NOT NULL,
     is_built_in INTEGER NOT NULL,
     findings TEXT NOT NULL,
     findings_accepted INTEGER NOT NULL,
     created_at TEXT NOT NULL
   ) STRICT`)}${d.pg(`
CREATE TABLE toolbus_skills (
  id text PRIMARY KEY,
  name text NOT NULL UNIQUE,
  description text NOT NULL,
  front_matter text NOT NULL,
  sha256 text NOT NULL,
  blob_key text NOT NULL,
  total_bytes bigint NOT NULL,
  file_count integer NOT NULL,
  is_built_in boolean NOT NULL,
  findings text NOT NULL,
  findings_accepted boolean NOT NULL,
  created_at text NOT NULL
);
CREATE TABLE toolbus_skill_blobs (
  key text PRIMARY KEY,
  data bytea NOT NULL,
  size bigint NOT NULL
);`)}`,
  },
];
