import type { ReactNode } from 'react';

/** A table of an admin page: its caption, its column heads (scoped, for screen readers) and the rows it is given. */
export function AdminTable(props: {
  readonly caption: ReactNode;
  readonly columns: readonly string[];
  readonly children: ReactNode;
}) {
  return (
    <table>
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          {props.columns.map((column) => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{props.children}</tbody>
    </table>
  );
}
