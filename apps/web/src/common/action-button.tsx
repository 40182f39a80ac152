import type { ReactNode } from 'react';
import type { Action } from './use-load.ts';

/** A button that runs `run` as `action`: a table row's Remove, Revoke or Approve, with its note in the Feedback. */
export function ActionButton(props: {
  readonly action: Action;
  readonly run: () => Promise<unknown>;
  /** The accessible name, where the words on the button do not say which row it acts on. */
  readonly 'aria-label'?: string | undefined;
  readonly disabled?: boolean | undefined;
  readonly children: ReactNode;
}) {
  return (
    <button
      type="button"
      aria-label={props['aria-label']}
      disabled={props.disabled}
      onClick={() => void props.action.run(props.run)}
    >
      {props.children}
    </button>
  );
}
