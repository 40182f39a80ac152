import type { Selectable } from 'kysely';
import type { StorageSchema } from './storage-schema.ts';

/** `user_id` → `userId`, as a type. */
type Camel<Name extends string> = Name extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<Camel<Tail>>}`
  : Name;
type Aliased<Name extends string> = Name extends Camel<Name> ? Name : `${Name} as ${Camel<Name>}`;

/** Columns to select, each under its camelCase name (`user_id as userId`): a row reads as its domain object. */
export function camelColumns<const Names extends readonly string[]>(
  ...names: Names
): { readonly [Index in keyof Names]: Aliased<Names[Index]> } {
  return names.map((name) => {
    const camel = name.replace(/_(.)/g, (_, letter: string) => letter.toUpperCase());
    return camel === name ? name : `${name} as ${camel}`;
  }) as never;
}

/** A row of `Table` as {@link camelColumns} reads it: the domain type of a table's row, declared once. */
export type StoredRow<Table extends keyof StorageSchema> = {
  readonly [Column in keyof Selectable<StorageSchema[Table]> & string as Camel<Column>]: Selectable<
    StorageSchema[Table]
  >[Column];
};

/** What creating a `Stored` object takes: the `Given` fields, and the `Defaulted` ones when not left to their default. */
export type Creating<Stored, Given extends keyof Stored, Defaulted extends keyof Stored = never> = Pick<
  Stored,
  Given
> &
  Partial<Pick<Stored, Defaulted>>;
