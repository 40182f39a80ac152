import assert from 'node:assert/strict';
import type { ToolAssembly } from '../construct-tools.ts';

/**
 * Asserts what an assembly offers (its tools' names, in order) and what it left out: each skipped tool as its row
 * id or tool name (`skippedBy`) with the reason, in order.
 */
export function assertAssembled(
  assembly: Pick<ToolAssembly, 'tools' | 'skipped'>,
  expected: {
    readonly tools: readonly string[];
    readonly skippedBy: 'rowId' | 'toolName';
    readonly skipped: readonly (readonly [string | undefined, string])[];
  },
): void {
  assert.deepEqual(
    assembly.tools.map((tool) => tool.name),
    expected.tools,
  );
  assert.deepEqual(
    assembly.skipped.map((item) => [item[expected.skippedBy], item.reason]),
    expected.skipped,
  );
}
