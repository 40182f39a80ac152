import type { CitationCheck, CitedDocument, Packet } from '@toolbus/spec';
import { placementKey } from '@toolbus/spec';
import { TerminalRenderer, type TerminalRendererOptions } from './terminal-renderer.ts';

/**
 * Draws a Deep Research turn on the terminal renderer: the plan as it streams, one line per research agent that
 * shows its current step and tool (updated in place on a terminal), the report with its sources, and the
 * citations the support check found unsupported. Research packets are translated into the ones the terminal
 * renderer already draws; an agent's inner packets only update its line.
 */
export class ResearchRenderer {
  readonly #terminal: TerminalRenderer;
  readonly #write: (text: string) => unknown;
  readonly #agents = new Set<string>();
  #planKey: string | undefined;
  #checks: readonly CitationCheck[] = [];

  constructor(options: TerminalRendererOptions) {
    this.#terminal = new TerminalRenderer(options);
    this.#write = options.write;
  }

  render(packet: Packet): void {
    const { placement, obj } = packet;
    const top = { turn: placement.turn, tab: placement.tab };
    const key = placementKey(top);
    const progress = (message: string) =>
      this.#terminal.render({
        ...packet,
        placement: top,
        obj: { type: 'tool-progress', toolCallId: key, message },
      });
    if (placement.path?.length) {
      if (!this.#agents.has(key)) return;
      const step = (placement.path[0]?.turn ?? 0) + 1;
      if (obj.type === 'tool-start') progress(`step ${step}: ${obj.displayName}`);
      if (obj.type === 'search-queries')
        progress(`step ${step}: searching ${obj.queries.map((query) => `"${query}"`).join(', ')}`);
      if (obj.type === 'open-url-urls') progress(`step ${step}: opening ${obj.urls.join(', ')}`);
      return;
    }
    switch (obj.type) {
      case 'research-plan-start':
        this.#planKey = key;
        this.#terminal.render({ ...packet, obj: { type: 'message-delta', content: 'Research plan:\n' } });
        return;
      case 'research-plan-delta':
        this.#terminal.render({ ...packet, obj: { type: 'message-delta', content: obj.content } });
        return;
      case 'research-agent-start':
        this.#agents.add(key);
        this.#terminal.render({
          ...packet,
          obj: {
            type: 'tool-start',
            toolCallId: key,
            toolName: 'research_agent',
            displayName: `Agent ${placement.tab + 1}: ${obj.task.length > 70 ? `${obj.task.slice(0, 67)}...` : obj.task}`,
          },
        });
        return;
      case 'intermediate-report-start':
        progress('writing its report');
        return;
      case 'intermediate-report-cited-documents':
        progress(`report written, ${obj.documents.length} source${obj.documents.length === 1 ? '' : 's'}`);
        return;
      case 'intermediate-report-delta':
        return;
      case 'citation-check':
        this.#checks = obj.checks;
        return;
      case 'section-end':
        if (key === this.#planKey) {
          this.#planKey = undefined;
          this.#terminal.render({ ...packet, obj: { type: 'message-delta', content: '\n\n' } });
          return;
        }
        this.#terminal.render(packet);
        return;
      default:
        this.#terminal.render(packet);
    }
  }

  /** The report's sources, then the citations that are not supported by their source (never hidden). */
  renderSources(documents: readonly CitedDocument[]): void {
    this.#terminal.renderSources(documents);
    const unsupported = this.#checks.filter((check) => check.verdict === 'unsupported');
    const unverifiable = this.#checks.filter((check) => check.verdict === 'unverifiable').length;
    if (unsupported.length > 0) {
      this.#write('\nUnsupported citations (the cited source does not say this):\n');
      for (const check of unsupported) this.#write(`  [${check.citationNumber}] "${check.sentence}"\n`);
    }
    if (this.#checks.length > 0) {
      const supported = this.#checks.length - unsupported.length - unverifiable;
      this.#write(
        `\nCitation check: ${supported} supported, ${unsupported.length} unsupported, ${unverifiable} unverifiable.\n`,
      );
    }
  }
}
