import type { PacketObject } from '@toolbus/spec';
import { toolOf } from './tree-placement.ts';
import { rememberDocuments, type TreeNode, type TurnTree } from './turn-tree.ts';

/**
 * Folds a packet of one tool call (its start, streamed arguments, progress, results and end) into the node the
 * call is at. False for any other packet, which the caller folds.
 */
export function applyToolPacket(tree: TurnTree, node: TreeNode, obj: PacketObject): boolean {
  switch (obj.type) {
    case 'tool-start': {
      const tool = toolOf(node, obj.toolCallId, obj.toolName);
      tool.displayName = obj.displayName;
      if (obj.arguments) tool.arguments = { ...obj.arguments };
      return true;
    }
    case 'tool-argument-delta': {
      const tool = toolOf(node, obj.toolCallId, obj.toolName);
      if (obj.displayName) tool.displayName = obj.displayName;
      for (const [name, text] of Object.entries(obj.argumentDeltas)) {
        tool.streamedArguments[name] = (tool.streamedArguments[name] ?? '') + text;
      }
      return true;
    }
    case 'tool-progress':
      toolOf(node, obj.toolCallId, '').progress.push(obj.message);
      return true;
    case 'tool-end': {
      // The runner's word on how the call ended, also for a call that never started (an unknown tool, one over
      // the cap, one merged into another): it ends the node, and a failure shows where the call is, once.
      const { type: _type, toolCallId: _id, toolName: _name, ...end } = obj;
      toolOf(node, obj.toolCallId, obj.toolName).end = end;
      node.ended = true;
      if (obj.error && !node.errors.some((error) => error.message === obj.error?.message))
        node.errors.push({ code: obj.error.code, message: obj.error.message });
      return true;
    }
    case 'search-queries':
      toolOf(node, obj.toolCallId, '').queries.push(...obj.queries);
      return true;
    case 'search-documents':
      toolOf(node, obj.toolCallId, '').documents.push(...obj.documents);
      rememberDocuments(tree, obj.documents);
      return true;
    case 'open-url-urls':
      toolOf(node, obj.toolCallId, '').urls.push(...obj.urls);
      return true;
    case 'file-reader-result':
      toolOf(node, obj.toolCallId, '').fileReads.push({
        fileName: obj.fileName,
        startChar: obj.startChar,
        endChar: obj.endChar,
        totalChars: obj.totalChars,
      });
      return true;
    case 'image-generation-heartbeat':
      toolOf(node, obj.toolCallId, '');
      return true;
    case 'image-generation-final':
      toolOf(node, obj.toolCallId, '').images.push(...obj.images);
      return true;
    case 'python-delta': {
      const tool = toolOf(node, obj.toolCallId, 'run_python');
      if (obj.stdout) tool.stdout += obj.stdout;
      if (obj.stderr) tool.stderr += obj.stderr;
      if (obj.files) tool.files.push(...obj.files);
      if (obj.exitCode !== undefined) tool.exitCode = obj.exitCode;
      if (obj.timedOut) tool.timedOut = true;
      return true;
    }
    case 'custom-tool-delta':
      toolOf(node, obj.toolCallId, obj.toolName).results.push({
        responseType: obj.responseType,
        data: obj.data,
        files: obj.files ?? [],
      });
      return true;
    case 'memory-delta':
      toolOf(node, obj.toolCallId, '').memories.push({ operation: obj.operation, text: obj.text });
      return true;
    default:
      return false;
  }
}
