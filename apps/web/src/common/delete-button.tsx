import type { ReactNode } from 'react';
import { ActionButton } from './action-button.tsx';
import { client } from './api.ts';
import type { Action } from './use-load.ts';

/**
 * A row's Remove (Revoke, Delete, Disconnect): DELETEs `path` as `action`, then `onDeleted` (the list reloads) and
 * `note` in the Feedback.
 */
export function DeleteButton(props: {
  readonly action: Action;
  readonly path: string;
  readonly onDeleted: () => void;
  readonly note?: string;
  readonly 'aria-label'?: string;
  readonly disabled?: boolean;
  readonly children: ReactNode;
}) {
  return (
    <ActionButton
      action={props.action}
      aria-label={props['aria-label']}
      disabled={props.disabled}
      run={async () => {
        await client.request('DELETE', props.path);
        props.onDeleted();
        return props.note;
      }}
    >
      {props.children}
    </ActionButton>
  );
}
