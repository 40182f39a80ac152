import type { ToolDefinition } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { matchJsonToolCalls } from '../match-json-tool-calls.ts';
import { forEachJsonValue } from '../scan-json-values.ts';
import type { TextScan } from '../text-scan.ts';
import { indexToolDefinitions } from '../tool-schema-index.ts';

/**
 * JSON written anywhere in the text: bare, in code fences, after `<|python_tag|>`, in `<tool_call>`, in
 * `[TOOL_CALLS]`, in most vendor tags (their JSON body is found by the scan). Each outermost JSON value is
 * matched once (see `matchJsonToolCalls`); only these outermost values may be bare arguments.
 */
export const jsonToolCallParser: ToolCallTextParser = {
  name: 'json',
  detect: (text) => text.includes('{'),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan?: TextScan): LocatedToolCall[] {
    const tools = scan ? scan.tools(toolDefs) : indexToolDefinitions(toolDefs);
    const calls: LocatedToolCall[] = [];
    // Where the rest of the text is claimed by higher-priority dialects, no value there could be kept.
    const stopAt = scan ? scan.recovered.claimedFrom(text.length) : text.length;
    // Text claimed by higher-priority dialects is passed over unread: no value starting there could be kept.
    const resumeAt = scan ? (start: number) => scan.recovered.endOfRangeAt(start) : undefined;
    forEachJsonValue(text, { objectsOnly: true, stopAt, ...omitUndefined({ resumeAt }) }, (scanned) => {
      // Text a higher-priority dialect recovered (the JSON body of its markup): a call here would be dropped.
      if (scan?.recovered.overlaps(scanned.start, scanned.end)) return;
      for (const call of matchJsonToolCalls(scanned.value, { tools, allowBareArguments: true })) {
        calls.push({ ...call, start: scanned.start, end: scanned.end });
      }
    });
    return calls;
  },
};
