import type { FileReference } from '@toolbus/spec';
import type { Level, TreeNode, TurnTree } from './turn-tree.ts';

function collect(level: Level, into: Map<string, FileReference>): void {
  for (const cycle of level.cycles) {
    for (const node of cycle.tabs) collectNode(node, into);
  }
}

function collectNode(node: TreeNode, into: Map<string, FileReference>): void {
  const tool = node.tool;
  if (tool) {
    for (const file of tool.files) into.set(file.fileId, file);
    for (const image of tool.images) into.set(image.fileId, image);
    for (const result of tool.results) for (const file of result.files) into.set(file.fileId, file);
  }
  collect(node.children, into);
}

/**
 * Every file the turn's tools made (any depth), once each, in the order they appeared: what the answer may refer
 * to ("the chart above") whichever tab happens to be open.
 */
export function filesOfTurn(tree: TurnTree): FileReference[] {
  const files = new Map<string, FileReference>();
  collect(tree.root, files);
  return [...files.values()];
}
