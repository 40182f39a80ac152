import { type KeyboardEvent, memo, useContext, useId, useState } from 'react';
import { inStartOrder, labelsOf, titleOf } from '../turn/tab-labels.ts';
import { failureOf } from '../turn/tool-outcome.ts';
import { type Cycle, isWorkNode, type Level, type TreeNode } from '../turn/turn-tree.ts';
import { ActivityStrip } from './activity-strip.tsx';
import { ApprovalCard } from './approval-card.tsx';
import { ElicitationCard } from './elicitation-card.tsx';
import { LaneProgress } from './lane-progress.tsx';
import { MarkdownView } from './markdown-view.tsx';
import { AncestorEnded, StatusBadge } from './status-badge.tsx';
import { ToolBody } from './tool-body.tsx';
import { TurnContext } from './turn-context.ts';
import { VirtualList, virtualFrom } from './virtual-list.tsx';

/** Reasoning, collapsed by default once it is done, open while it streams. */
function Reasoning(props: { readonly node: TreeNode }) {
  if (!props.node.reasoning) return null;
  return (
    <details className="reasoning" open={!props.node.reasoningDone}>
      <summary>{props.node.reasoningDone ? 'Reasoning' : 'Reasoning…'}</summary>
      <p>{props.node.reasoning}</p>
    </details>
  );
}

/** One node: whatever it holds, then the levels nested under it, drawn by the same views (any depth). */
export const NodeView = memo(function NodeView(props: {
  readonly node: TreeNode;
  readonly version: number;
  readonly showTitle: boolean;
}) {
  const context = useContext(TurnContext);
  const ancestorEnded = useContext(AncestorEnded);
  const node = props.node;
  if (!context) return null;
  const unsupported = context.tree.checks.filter((check) => check.verdict === 'unsupported');
  return (
    <div className="node" data-placement={node.key}>
      {props.showTitle && isWorkNode(node) ? (
        <h3 className="node-title">
          {titleOf(node)} <StatusBadge node={node} />
        </h3>
      ) : null}
      <Reasoning node={node} />
      {node.plan ? (
        <section className="plan" aria-label="Research plan">
          <h4>Plan</h4>
          <MarkdownView text={node.plan} marks={context.marks} marksVersion={context.marksVersion} />
        </section>
      ) : null}
      {node.tool ? <ToolBody tool={node.tool} /> : null}
      {node.tool && node.errors.length === 0 && failureOf(node) ? (
        <p role="alert" className="error tool-failure">
          <strong>{failureOf(node)?.label}</strong>: {failureOf(node)?.cause}
        </p>
      ) : null}
      {node.tool?.end?.mergedInto ? (
        <p className="merged-note">Merged into another call of this tool; its results are shown there.</p>
      ) : null}
      {node.bash.length > 0 ? (
        <ol className="bash-timeline" aria-label="Commands">
          {node.bash.map((step, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: commands are a sequence
            <li key={index} className={step.exitCode !== null && step.exitCode !== 0 ? 'bash-failed' : ''}>
              <code className="bash-command">$ {step.command}</code>
              {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
              {step.stdout ? <pre tabIndex={0}>{step.stdout}</pre> : null}
              {step.stderr ? (
                // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
                <pre tabIndex={0} className="stderr">
                  {step.stderr}
                </pre>
              ) : null}
              <span className="bash-exit">
                {step.done ? (step.timedOut ? 'timed out' : `exit ${step.exitCode ?? '?'}`) : 'running…'}
              </span>
            </li>
          ))}
        </ol>
      ) : null}
      {node.children.cycles.length > 0 ? (
        <AncestorEnded.Provider value={ancestorEnded || node.ended || node.errors.length > 0}>
          <LevelView level={node.children} />
        </AncestorEnded.Provider>
      ) : null}
      {node.report ? (
        <section className="report" aria-label="Report">
          <MarkdownView text={node.report} marks={context.marks} marksVersion={context.marksVersion} />
        </section>
      ) : null}
      {node.coding?.answer ? <p className="coding-answer">{node.coding.answer}</p> : null}
      {node.approvals.map((request) => (
        <ApprovalCard
          key={request.approvalId}
          request={request}
          decided={context.tree.decisions.get(request.approvalId)}
        />
      ))}
      {node.elicitations.map((request) => (
        <ElicitationCard
          key={request.elicitationId}
          request={request}
          resolved={context.tree.elicitationsResolved.get(request.elicitationId)}
        />
      ))}
      {node.message ? (
        <div className="answer" aria-live={context.tree.stopReason ? 'off' : 'polite'}>
          <MarkdownView text={node.message} marks={context.marks} marksVersion={context.marksVersion} />
          {node.depth === 0 && unsupported.length > 0 ? (
            <details className="unsupported" open>
              <summary>{unsupported.length} citation(s) not supported by their source</summary>
              <ul>
                {unsupported.map((check) => (
                  <li key={`${check.citationNumber}:${check.sentence}`}>
                    [{check.citationNumber}] {check.sentence}
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
        </div>
      ) : null}
      {node.errors.map((error, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: errors are a sequence
        <p key={index} role="alert" className="error">
          <strong>{error.code}</strong>: {error.message}
        </p>
      ))}
    </div>
  );
});

/**
 * Parallel work of one cycle as tabs (each live on its own), or as lanes when they are sub-agents. Tabs keep the
 * order their calls started in, and the selection follows the tab (its key), so a call that arrives later never
 * takes it.
 */
function Tabs(props: { readonly nodes: readonly TreeNode[]; readonly cycle: Cycle }) {
  const id = useId();
  const [selectedKey, setSelectedKey] = useState<string | undefined>();
  const found = props.nodes.findIndex((node) => node.key === selectedKey);
  const index = Math.max(found, 0);
  const setSelected = (position: number) => setSelectedKey(props.nodes[position]?.key);
  const labels = labelsOf(props.nodes);
  const onKey = (event: KeyboardEvent) => {
    const delta = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (event.key === 'Home' || event.key === 'End' || delta !== 0) {
      event.preventDefault();
      const next =
        event.key === 'Home'
          ? 0
          : event.key === 'End'
            ? props.nodes.length - 1
            : (index + delta + props.nodes.length) % props.nodes.length;
      setSelected(next);
      document.getElementById(`${id}-tab-${next}`)?.focus();
    }
  };
  const active = props.nodes[index] as TreeNode;
  return (
    <div className="tabs">
      <div role="tablist" aria-label={`${props.nodes.length} tools in parallel`} onKeyDown={onKey}>
        {props.nodes.map((node, position) => (
          <button
            key={node.key}
            id={`${id}-tab-${position}`}
            type="button"
            role="tab"
            aria-selected={position === index}
            aria-controls={`${id}-panel`}
            tabIndex={position === index ? 0 : -1}
            onClick={() => setSelected(position)}
            data-placement={node.key}
          >
            {labels[position]} <StatusBadge node={node} />
          </button>
        ))}
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the WAI-ARIA tabs pattern makes the panel focusable */}
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-tab-${index}`} tabIndex={0}>
        <NodeView node={active} version={active.version} showTitle={false} />
      </div>
    </div>
  );
}

function Lanes(props: { readonly nodes: readonly TreeNode[] }) {
  const labels = labelsOf(props.nodes);
  return (
    <ul className="lanes" aria-label={`${props.nodes.length} agents in parallel`}>
      {props.nodes.map((node, position) => (
        <li key={node.key} className="lane" aria-label={labels[position]}>
          <LaneProgress node={node} />
          <NodeView node={node} version={node.version} showTitle />
        </li>
      ))}
    </ul>
  );
}

const CycleView = memo(function CycleView(props: { readonly cycle: Cycle; readonly version: number }) {
  const work = inStartOrder(props.cycle.tabs.filter(isWorkNode));
  const text = props.cycle.tabs.filter((node) => !isWorkNode(node));
  const nested = work.some((node) => node.children.cycles.length > 0 || node.agentTask !== undefined);
  return (
    <div className="cycle">
      {text.map((node) => (
        <NodeView key={node.key} node={node} version={node.version} showTitle={false} />
      ))}
      {work.length > 0 ? (
        <ActivityStrip nodes={work} agents={nested}>
          {work.length === 1 ? (
            <div className="single-tool">
              <NodeView node={work[0] as TreeNode} version={(work[0] as TreeNode).version} showTitle />
            </div>
          ) : nested ? (
            <Lanes nodes={work} />
          ) : (
            <Tabs nodes={work} cycle={props.cycle} />
          )}
        </ActivityStrip>
      ) : null}
    </div>
  );
});

/**
 * A loop's cycles in order; used for the turn itself and for every nested level. A level of thousands of steps (an
 * agent that ran long) mounts only the steps in view.
 */
export function LevelView(props: { readonly level: Level }) {
  const cycles = props.level.cycles;
  if (cycles.length > virtualFrom) {
    return (
      <VirtualList
        className="level level-virtual"
        count={cycles.length}
        estimatePx={48}
        keyOf={(index) => cycles[index]?.turn ?? index}
        render={(index) => {
          const cycle = cycles[index] as Cycle;
          return <CycleView cycle={cycle} version={cycle.version} />;
        }}
      />
    );
  }
  return (
    <div className="level">
      {props.level.cycles.map((cycle) => (
        <CycleView key={cycle.turn} cycle={cycle} version={cycle.version} />
      ))}
    </div>
  );
}
