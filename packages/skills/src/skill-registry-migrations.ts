// The skill registry's schema steps, run by storage's migration runner and recorded in `skill_registry_migrations`,
// apart from storage's and the search index's steps, so each can move alone on a shared database. SQLite only (the
// registry is; a PostgreSQL registry would bring its words then). Released, so never edited: append new steps.
import type { Migration } from '@toolbus/storage';

export const skillRegistryMigrations: readonly Migration[] = [
  {
    name: 'skills: one row per ingested skill, its bundle in the blob store',
    // Release 1b61ff76 ran this statement as its version 1 (then recorded in `toolbus_skills_migrations`).
    sql: () => `CREATE TABLE toolbus_skills (
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
   ) STRICT`,
  },
];
