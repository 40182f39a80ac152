import { nextMessageText, omitUndefined } from '@toolbus/spec';
import { applyToolPacket } from './apply-tool-packet.ts';
import { nodeAt } from './tree-placement.ts';
import { type Cycle, rememberDocuments, type TreeNode, type TurnTree, type UiPacket } from './turn-tree.ts';

/**
 * Folds one packet into the tree. Packets at or before the last folded sequence are ignored, so a replay after a
 * reconnect never doubles anything. Nesting comes from the placement path alone: any depth, any tool.
 */
export function applyPacket(tree: TurnTree, packet: UiPacket): void {
  if (packet.sequence <= tree.lastSequence) return;
  tree.lastSequence = packet.sequence;
  tree.packetCount += 1;
  tree.version += 1;
  const obj = packet.obj;
  // Turn-wide packets: no node of their own.
  switch (obj.type) {
    case 'heartbeat':
      return;
    case 'stop':
      tree.stopReason = obj.reason;
      return;
    case 'citation-info':
      if (!tree.cited.includes(obj.citationNumber)) tree.cited.push(obj.citationNumber);
      return;
    case 'citation-check':
      tree.checks = [...tree.checks, ...obj.checks];
      return;
    case 'approval-resolved':
      tree.decisions.set(obj.approvalId, obj.resolution);
      return;
    case 'elicitation-resolved':
      tree.elicitationsResolved.set(obj.elicitationId, obj.resolution);
      return;
  }
  const touched: (Cycle | TreeNode)[] = [];
  const node = nodeAt(tree, packet.placement, packet.sequence, touched);
  for (const item of touched) item.version = tree.version;
  if (applyToolPacket(tree, node, obj)) return;
  switch (obj.type) {
    case 'section-end':
      node.ended = true;
      for (const step of node.bash) step.done = true;
      break;
    case 'top-level-branching': {
      const cycle = touched.at(-2) as Cycle;
      cycle.branches = obj.branches;
      break;
    }
    case 'error':
      node.errors.push({ code: obj.code, message: obj.message });
      break;
    case 'reasoning-start':
      break;
    case 'reasoning-delta':
      node.reasoning += obj.reasoning;
      break;
    case 'reasoning-end':
      node.reasoningDone = true;
      break;
    case 'message-start':
      node.messageStarted = true;
      rememberDocuments(tree, obj.finalDocuments);
      break;
    case 'message-delta':
    case 'message-replace':
      node.messageStarted = true;
      node.message = nextMessageText(node.message, obj) ?? node.message;
      break;
    case 'research-plan-start':
      break;
    case 'research-plan-delta':
      node.plan += obj.content;
      break;
    case 'research-agent-start':
      node.agentTask = obj.task;
      break;
    case 'intermediate-report-start':
      break;
    case 'intermediate-report-delta':
      node.report += obj.content;
      break;
    case 'intermediate-report-cited-documents':
      node.reportDocuments = [...obj.documents];
      rememberDocuments(tree, obj.documents);
      break;
    case 'coding-agent-start':
      node.coding = { query: obj.query, ...omitUndefined({ repository: obj.repository || undefined }) };
      break;
    case 'coding-agent-final':
      node.coding = { ...(node.coding ?? { query: '' }), answer: obj.answer };
      break;
    case 'bash-start':
      node.bash.push({
        command: obj.command,
        stdout: '',
        stderr: '',
        exitCode: null,
        timedOut: false,
        done: false,
      });
      break;
    case 'bash-delta': {
      const step = node.bash.at(-1);
      if (step) {
        // Output comes in chunks while the command runs; the last packet carries the exit status.
        step.stdout += obj.stdout ?? '';
        step.stderr += obj.stderr ?? '';
        if (obj.exitCode !== undefined || obj.timedOut !== undefined) {
          step.exitCode = obj.exitCode ?? null;
          step.timedOut = obj.timedOut ?? false;
          step.done = true;
        }
      }
      break;
    }
    case 'approval-request':
      node.approvals.push(obj);
      break;
    case 'elicitation-request':
      node.elicitations.push(obj);
      break;
    default:
      // A packet type this UI does not know yet: ignored, so a newer server never breaks an older page.
      break;
  }
}
