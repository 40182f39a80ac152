import type { SecretBox } from '../secret-box.ts';

/** Seals and opens the values of one column; a value left out is stored as NULL. */
interface SealedColumn<Value> {
  seal(row: string | number, value: Value): string;
  seal(row: string | number, value: Value | undefined): string | null;
  /** Throws `secret_undecryptable` when the value does not open (wrong key, altered, or copied from elsewhere). */
  open(row: string | number, sealed: string): Value;
  open(row: string | number, sealed: string | null): Value | undefined;
}

/** The map to seal, or none when it has no entries: an empty map is stored as NULL, like an absent one. */
export const nonEmpty = <Map extends object>(map: Map | undefined) =>
  map !== undefined && Object.keys(map).length > 0 ? map : undefined;

/**
 * One sealed column (`table.column`), its values written as JSON unless `format` says otherwise. Each value is sealed
 * with `table.column:row` as its context, so a value copied into another row or column does not open.
 */
export function sealedColumn<Value>(
  secrets: SecretBox,
  column: `${string}.${string}`,
  format: { stringify(value: Value): string; parse(text: string): Value } = JSON,
): SealedColumn<Value> {
  const context = (row: string | number) => `${column}:${row}`;
  // One implementation of both overloads: a value is absent exactly when it is NULL.
  return {
    seal: (row: string | number, value: Value | undefined) =>
      value === undefined ? null : secrets.seal(format.stringify(value), context(row)),
    open: (row: string | number, sealed: string | null) =>
      sealed === null ? undefined : format.parse(secrets.open(sealed, context(row))),
  } as SealedColumn<Value>;
}
