/** One schema step. Versions are consecutive integers from 1; a released migration is never edited. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** The rule of every `search_usage` column, written out by the steps that add one. */
export const searchUsageCheck = `CHECK (search_usage IN ('auto', 'enabled', 'disabled'))`;
