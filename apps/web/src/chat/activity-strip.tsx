import { type ReactNode, useContext, useId, useState } from 'react';
import { labelsOf } from '../turn/tab-labels.ts';
import type { TreeNode } from '../turn/turn-tree.ts';
import { StatusBadge } from './status-badge.tsx';
import { TurnContext } from './turn-context.ts';

/**
 * A cycle's tool work behind one compact line: its count, and while closed each call's name and status. A turn
 * watched live opens it (progress as it happens); a turn read back later keeps it closed until the reader opens it,
 * so an old chat reads as its answers, and a closed strip draws none of the work below it.
 */
export function ActivityStrip(props: {
  readonly nodes: readonly TreeNode[];
  /** The calls are sub-agents (drawn as lanes). */
  readonly agents: boolean;
  readonly children: ReactNode;
}) {
  const context = useContext(TurnContext);
  const [open, setOpen] = useState(context?.workOpen ?? true);
  const id = useId();
  const count = props.nodes.length;
  const noun = props.agents ? (count === 1 ? 'agent' : 'agents') : count === 1 ? 'tool' : 'tools';
  const labels = open ? [] : labelsOf(props.nodes);
  return (
    <div className={open ? 'activity activity-open' : 'activity'}>
      <button
        type="button"
        className="activity-strip"
        aria-expanded={open}
        {...(open ? { 'aria-controls': id } : {})}
        onClick={() => setOpen(!open)}
      >
        <span className="activity-count">
          {count} {noun}
        </span>
        {open
          ? null
          : props.nodes.map((node, position) => (
              <span key={node.key} className="activity-chip">
                {labels[position]} <StatusBadge node={node} />
              </span>
            ))}
        <span className="activity-toggle">{open ? 'Hide' : 'Show'}</span>
      </button>
      {open ? <div id={id}>{props.children}</div> : null}
    </div>
  );
}
