import type { ToolDefinition } from '@toolbus/spec';
import { toolNameTagMarkers, toolNameTagParser } from '../recovery/dialects/tool-name-tag-parser.ts';
import type { ToolCallTextParser } from '../recovery/extracted-tool-call.ts';
import type { ToolCallMarkupMarker } from '../recovery/tool-call-markup-marker.ts';
import {
  defaultToolCallMarkupMarkers,
  defaultToolCallParsers,
  type ToolCallParserRegistry,
  toolCallMarkupMarkersOf,
} from '../recovery/tool-call-parser-registry.ts';

const markersByParsers = new WeakMap<readonly ToolCallTextParser[], readonly ToolCallMarkupMarker[]>();

/**
 * The markup markers of dialect parsers (the answer filter hides them), one list per parser list: the markup
 * filter builds its tables once per marker list, so a list made afresh for every answer would rebuild them each
 * time. A registry can still change, so it is read each time.
 */
export function markersOf(
  parsers: readonly ToolCallTextParser[] | ToolCallParserRegistry,
): readonly ToolCallMarkupMarker[] {
  if (parsers === defaultToolCallParsers) return defaultToolCallMarkupMarkers;
  if (!Array.isArray(parsers)) return toolCallMarkupMarkersOf(parsers);
  let markers = markersByParsers.get(parsers);
  if (markers === undefined) {
    markers = toolCallMarkupMarkersOf(parsers);
    markersByParsers.set(parsers, markers);
  }
  return markers;
}

const withToolTags = new WeakMap<
  readonly ToolCallMarkupMarker[],
  WeakMap<readonly ToolCallMarkupMarker[], readonly ToolCallMarkupMarker[]>
>();

/**
 * The markers an answer to a request with `tools` hides: the parsers' markers and, when the `tool-tag` dialect is
 * among the parsers, the declared tools' elements (`<get_weather>`, see `toolNameTagMarkers`). One list per parser
 * list and tool list, so the markup filter's tables are built once for each.
 */
export function answerMarkersOf(
  parsers: readonly ToolCallTextParser[] | ToolCallParserRegistry,
  tools: readonly ToolDefinition[],
): readonly ToolCallMarkupMarker[] {
  const base = markersOf(parsers);
  const list: readonly ToolCallTextParser[] = Array.isArray(parsers)
    ? parsers
    : (parsers as ToolCallParserRegistry).list();
  if (tools.length === 0 || !list.some((parser) => parser.name === toolNameTagParser.name)) return base;
  const tags = toolNameTagMarkers(tools);
  if (tags.length === 0) return base;
  let byTags = withToolTags.get(base);
  if (byTags === undefined) {
    byTags = new WeakMap();
    withToolTags.set(base, byTags);
  }
  let markers = byTags.get(tags);
  if (markers === undefined) {
    markers = Object.freeze([...base, ...tags]);
    byTags.set(tags, markers);
  }
  return markers;
}
