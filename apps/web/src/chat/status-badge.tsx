import { createContext, useContext } from 'react';
import { failureOf } from '../turn/tool-outcome.ts';
import { isRunning, type TreeNode } from '../turn/turn-tree.ts';
import { TurnContext } from './turn-context.ts';

/** True below a node that ended or failed: work nested in it cannot still be running. */
export const AncestorEnded = createContext(false);

/** A node's status: red with its cause when it failed, running while it runs, else done. */
export function StatusBadge(props: { readonly node: TreeNode }) {
  const context = useContext(TurnContext);
  const ancestorEnded = useContext(AncestorEnded);
  if (!context) return null;
  const failure = failureOf(props.node);
  if (failure)
    return (
      <span className="badge badge-error" title={failure.cause}>
        {failure.label}
      </span>
    );
  if (!ancestorEnded && isRunning(props.node, context.tree))
    return <span className="badge badge-live">running</span>;
  return <span className="badge badge-done">done</span>;
}
