import type { ReactNode } from 'react';
import type { Action } from './use-load.ts';

/**
 * A form whose submit runs one action (its note or failure shows in the action's Feedback), ending in its submit
 * button, which is disabled while the action runs: the one shape of every admin page's forms.
 */
export function ActionForm(props: {
  readonly action: Action;
  readonly className: 'inline-form' | 'stack-form';
  /** The submit button's words. */
  readonly submit: string;
  /** Also keeps the submit button disabled (a form not yet complete). */
  readonly submitDisabled?: boolean;
  readonly 'aria-label'?: string;
  readonly onSubmit: () => Promise<unknown>;
  readonly children: ReactNode;
}) {
  return (
    <form
      className={props.className}
      aria-label={props['aria-label']}
      onSubmit={(event) => {
        event.preventDefault();
        void props.action.run(props.onSubmit);
      }}
    >
      {props.children}
      <button type="submit" disabled={props.action.busy || props.submitDisabled === true}>
        {props.submit}
      </button>
    </form>
  );
}
