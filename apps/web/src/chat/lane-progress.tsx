import { useContext } from 'react';
import { isRunning, isWorkNode, type TreeNode } from '../turn/turn-tree.ts';
import { TurnContext } from './turn-context.ts';

/** How far one agent lane is: its steps, its tool calls and how many ended, and whether its report is written. */
export function laneProgress(node: TreeNode, running: boolean): string {
  let calls = 0;
  let ended = 0;
  for (const cycle of node.children.cycles) {
    for (const tab of cycle.tabs) {
      if (!isWorkNode(tab)) continue;
      calls += 1;
      if (tab.ended || tab.errors.length > 0 || tab.tool?.end !== undefined) ended += 1;
    }
  }
  const steps = node.children.cycles.length;
  const parts = [
    `${steps} ${steps === 1 ? 'step' : 'steps'}`,
    `${ended} of ${calls} ${calls === 1 ? 'tool call' : 'tool calls'} done`,
  ];
  if (node.report) parts.push(running ? 'writing its report' : 'report written');
  else if (running) parts.push(calls > ended ? 'working' : 'thinking');
  return parts.join(' · ');
}

/** A lane's live progress line (a polite live region: read out as it changes, not on every packet). */
export function LaneProgress(props: { readonly node: TreeNode }) {
  const context = useContext(TurnContext);
  if (!context) return null;
  const running = isRunning(props.node, context.tree);
  const steps = props.node.children.cycles.length;
  return (
    <p className="lane-progress" data-steps={steps}>
      {laneProgress(props.node, running)}
    </p>
  );
}
