/**
 * Persona names are unique ignoring case and surrounding spaces ("Support", " support " name one persona): people
 * pick a persona by its name (`toolbus persona use support`), so two that read the same would make that choice a
 * guess. Every backend stores the trimmed name and this key in a uniquely indexed column; the key is computed here,
 * not by the database, so SQLite (whose `lower` folds ASCII only) and PostgreSQL agree.
 */
export function personaNameKey(name: string): string {
  return name.trim().toLowerCase();
}
