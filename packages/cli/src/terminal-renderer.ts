import type { CitedDocument, Packet } from '@toolbus/spec';
import { placementKey } from '@toolbus/spec';

/** Options for {@link TerminalRenderer}. */
export interface TerminalRendererOptions {
  readonly write: (text: string) => unknown;
  /** A real terminal: tool lines update in place and reasoning is dimmed. */
  readonly interactive: boolean;
  readonly color: boolean;
  readonly showReasoning?: boolean;
}

interface ToolLine {
  readonly label: string;
  detail: string;
  state: 'running' | 'done' | 'failed';
}

const dim = (text: string) => `\u001b[2m${text}\u001b[22m`;
const symbols = { running: '…', done: '✓', failed: '✗' } as const;

/**
 * Draws a turn's packet stream in a terminal: the answer streams as it is written; each tool gets one line that
 * updates as it runs (in place on a terminal, a new line per change otherwise); reasoning is dimmed; the sources
 * the answer cited are listed at the end.
 */
export class TerminalRenderer {
  readonly #options: TerminalRendererOptions;
  readonly #tools = new Map<string, ToolLine>();
  /** Tool lines drawn in the current block, bottom line last; a block ends when other output is written. */
  #block: string[] = [];
  #atLineStart = true;
  #inReasoning = false;

  constructor(options: TerminalRendererOptions) {
    this.#options = options;
  }

  render(packet: Packet): void {
    const obj = packet.obj;
    const key = placementKey(packet.placement);
    switch (obj.type) {
      case 'reasoning-delta':
        if (this.#options.showReasoning === false) return;
        if (!this.#inReasoning) {
          this.#text(this.#options.color ? dim('thinking: ') : 'thinking: ');
          this.#inReasoning = true;
        }
        this.#text(this.#options.color ? dim(obj.reasoning) : obj.reasoning);
        return;
      case 'reasoning-end':
        if (this.#inReasoning) this.#text('\n');
        this.#inReasoning = false;
        return;
      case 'message-delta':
        this.#text(obj.content);
        return;
      case 'tool-start':
        this.#tools.set(key, {
          label: obj.displayName || obj.toolName,
          detail: describeArguments(obj.arguments),
          state: 'running',
        });
        this.#drawTool(key);
        return;
      case 'coding-agent-start':
        this.#tools.set(key, {
          label: 'Coding Agent',
          detail: `${obj.repository ?? ''}: ${obj.query}`.slice(0, 100),
          state: 'running',
        });
        this.#drawTool(key);
        return;
      case 'bash-start':
        // One line per command the coding agent runs; it updates when the command ends.
        this.#tools.set(key, { label: '$', detail: firstLine(obj.command), state: 'running' });
        this.#drawTool(key);
        return;
      case 'bash-delta': {
        const line = this.#tools.get(key);
        if (!line || obj.exitCode === undefined) return;
        const failed = obj.timedOut === true || obj.exitCode !== 0;
        line.state = failed ? 'failed' : 'done';
        if (failed) line.detail += obj.timedOut ? ' (timed out)' : ` (exit ${String(obj.exitCode)})`;
        this.#drawTool(key);
        return;
      }
      case 'search-queries':
        this.#update(key, `searching ${obj.queries.map((query) => `"${query}"`).join(', ')}`);
        return;
      case 'open-url-urls':
        this.#update(key, `opening ${obj.urls.join(', ')}`);
        return;
      case 'search-documents':
        this.#update(key, `${obj.documents.length} document${obj.documents.length === 1 ? '' : 's'}`);
        return;
      case 'tool-progress':
        this.#update(key, obj.message);
        return;
      case 'error': {
        const line = this.#tools.get(key);
        if (line) {
          line.state = 'failed';
          line.detail = obj.message;
          this.#drawTool(key);
        } else {
          this.#text(`\nerror: ${obj.message}\n`);
        }
        return;
      }
      case 'section-end': {
        const line = this.#tools.get(key);
        if (line && line.state === 'running') {
          line.state = 'done';
          this.#drawTool(key);
        }
        return;
      }
      case 'stop':
        if (!this.#atLineStart) this.#text('\n');
        return;
      default:
        return;
    }
  }

  /** Lists the cited sources (after the turn). */
  renderSources(documents: readonly CitedDocument[]): void {
    if (documents.length === 0) return;
    if (!this.#atLineStart) this.#text('\n');
    this.#text('\nSources:\n');
    // Several cited chunks of one document share a line: [1][3] Title — link.
    const groups = new Map<string, { numbers: number[]; title: string; link: string | undefined }>();
    for (const document of documents) {
      const key = document.link ?? `${document.title}#${document.citationNumber}`;
      const group = groups.get(key) ?? { numbers: [], title: document.title, link: document.link };
      group.numbers.push(document.citationNumber);
      groups.set(key, group);
    }
    for (const group of groups.values()) {
      const numbers = group.numbers.map((number) => `[${number}]`).join('');
      this.#text(`  ${numbers} ${group.title}${group.link ? ` — ${group.link}` : ''}\n`);
    }
  }

  #update(key: string, detail: string): void {
    const line = this.#tools.get(key);
    if (!line) return;
    line.detail = detail;
    // Without a terminal a line cannot change in place: keep logs short, print only start and end.
    if (this.#options.interactive) this.#drawTool(key);
  }

  #drawTool(key: string): void {
    const line = this.#tools.get(key) as ToolLine;
    const text = `${symbols[line.state]} ${line.label}${line.detail ? ` — ${line.detail}` : ''}`;
    const position = this.#block.indexOf(key);
    if (this.#options.interactive && position >= 0) {
      const up = this.#block.length - position;
      this.#options.write(`\u001b[${up}A\r\u001b[2K${text}\u001b[${up}B\r`);
      return;
    }
    if (!this.#atLineStart) this.#write('\n');
    this.#write(`${text}\n`);
    if (this.#options.interactive) this.#block.push(key);
  }

  #text(text: string): void {
    if (!text) return;
    this.#block = [];
    this.#write(text);
  }

  #write(text: string): void {
    this.#options.write(text);
    this.#atLineStart = text.endsWith('\n');
  }
}

function firstLine(command: string): string {
  const line = command.split('\n')[0] ?? '';
  return line.length > 100 || command.includes('\n') ? `${line.slice(0, 97)}...` : line;
}

function describeArguments(args: Readonly<Record<string, unknown>> | undefined): string {
  if (!args) return '';
  const text = JSON.stringify(args);
  return text === '{}' ? '' : text.length > 100 ? `${text.slice(0, 97)}...` : text;
}
