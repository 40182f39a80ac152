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
