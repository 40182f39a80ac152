import { functionCallsMarker } from '../recovery/tool-call-markup-marker.ts';
import { ToolCallMarkupStreamFilter } from './tool-call-markup-stream-filter.ts';

/** {@link ToolCallMarkupStreamFilter} for `<function_calls>…</function_calls>` only: the narrow filter of the system we model (docs/decisions/differences-from-onyx.md). */
export class XmlToolCallStreamFilter extends ToolCallMarkupStreamFilter {
  constructor() {
    super([functionCallsMarker]);
  }
}
