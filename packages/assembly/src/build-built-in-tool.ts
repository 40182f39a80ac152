import type { PersonaToolRow } from '@toolbus/storage';
import { adaptTool, checkAvailability } from './adapt-tool.ts';
import type { BuiltInToolFactory, BuiltInToolFactoryContext } from './built-in-tool-factory.ts';
import { messageOf, type RowOutcome, skippedRow } from './row-outcome.ts';

/**
 * Builds one built-in tool through its factory and checks its availability (a throw means unavailable, never a
 * failed assembly). A missing factory, a throwing factory and an unavailable tool are skips with their reason.
 */
export async function buildBuiltInTool(input: {
  readonly builtInId: string;
  readonly rowId: string;
  readonly row: PersonaToolRow | undefined;
  readonly factories: ReadonlyMap<string, BuiltInToolFactory>;
  readonly context: Omit<BuiltInToolFactoryContext, 'builtInId' | 'row'>;
}): Promise<RowOutcome> {
  const { builtInId, rowId } = input;
  const base = { rowId, source: 'built-in' as const, toolName: builtInId };
  const factory = input.factories.get(builtInId);
  if (factory === undefined)
    return skippedRow(base, 'unknown-built-in', `No factory for the built-in ${builtInId}.`);
  let tool: Awaited<ReturnType<BuiltInToolFactory>>;
  try {
    tool = await factory({ ...input.context, builtInId, row: input.row });
  } catch (error) {
    return skippedRow(
      base,
      'factory-failed',
      `The built-in ${builtInId} could not be created: ${messageOf(error)}`,
    );
  }
  const availability = await checkAvailability(tool, input.context.availabilityContext);
  if ('error' in availability) {
    return skippedRow(
      base,
      'availability-check-failed',
      `The availability check of ${builtInId} failed: ${messageOf(availability.error)}`,
    );
  }
  if (!availability.available)
    return skippedRow(base, 'unavailable', `The built-in ${builtInId} is not available.`);
  return { entries: [{ rowId, kind: 'built-in', tool: adaptTool(tool) }], skipped: [] };
}
