import type { CitedDocument, Packet } from '@toolbus/spec';
import { nextMessageText, placementKey } from '@toolbus/spec';
import { oneLine } from './one-line.ts';

/** Options for {@link TerminalRenderer}. */
export interface TerminalRendererOptions {
  readonly write: (text: string) => unknown;
  /** A real terminal: tool lines update in place and reasoning is dimmed. */
  readonly interactive: boolean;
  readonly color: boolean;
  readonly showReasoning?: boolean;
  /** Print errors of the turn itself (not of a tool) inline; off when the caller reports them elsewhere. */
  readonly printTurnErrors?: boolean;
  /** The terminal's width, to erase a message that is redrawn (default: the standard output's, else 80; 0 = unknown). */
  readonly columns?: number;
}

/** The answer being written: its text so far and what of it is on screen. */
interface MessageState {
  text: string;
  /** The text on screen, when the message was the last thing written (so it can be erased). */
  shown: string;
  /** Something else was written after the message began: it cannot be erased in place any more. */
  interrupted: boolean;
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
 * the answer cited are listed at the end. A `message-replace` (text shown turned out to hold a tool call) redraws
 * the message: on a terminal it is erased and written again; without one (a pipe, a log) a message is written
 * once it is settled, so call markup that is later retracted never reaches the output.
 */
export class TerminalRenderer {
  readonly #options: TerminalRendererOptions;
  readonly #tools = new Map<string, ToolLine>();
  /** Tool lines drawn in the current block, bottom line last; a block ends when other output is written. */
  #block: string[] = [];
  #atLineStart = true;
  #inReasoning = false;
  #message: MessageState | undefined;
  /** The text being written is the message's own (anything else interrupts it). */
  #writingMessage = false;
  /**
   * Tool line keys by call id, and causes the terminal shows instead of the model's message, by call id (an
   * unexpected error's own text, code that exited non-zero: told by the runner's hooks, which see what was thrown).
   */
  readonly #keysByCallId = new Map<string, string>();
  readonly #failures = new Map<string, string>();
  readonly #callIdsByKey = new Map<string, string>();

  constructor(options: TerminalRendererOptions) {
    this.#options = options;
  }

  render(packet: Packet): void {
    const obj = packet.obj;
    const key = placementKey(packet.placement);
    const isMessage =
      obj.type === 'message-delta' || obj.type === 'message-replace' || obj.type === 'citation-info';
    if (!isMessage) this.#settleMessage();
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
      case 'message-start':
        this.#message = { text: '', shown: '', interrupted: false };
        return;
      case 'message-delta': {
        const message = this.#currentMessage();
        message.text = nextMessageText(message.text, obj) ?? message.text;
        if (!this.#options.interactive) return;
        this.#messageText(obj.content);
        if (!message.interrupted) message.shown += obj.content;
        return;
      }
      case 'message-replace':
        this.#replaceMessage(obj.content);
        return;
      case 'tool-start':
        this.#keysByCallId.set(obj.toolCallId, key);
        this.#callIdsByKey.set(key, obj.toolCallId);
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
      case 'python-delta': {
        // What the code made or printed says more than its source, which the start line already showed.
        const made = obj.files?.map((file) => file.name) ?? [];
        const printed = obj.stdout?.trim().split('\n').at(-1);
        if (made.length > 0) this.#update(key, `made ${made.join(', ')}`.slice(0, 100));
        else if (printed && !this.#tools.get(key)?.detail.startsWith('made '))
          this.#update(key, printed.slice(0, 100));
        return;
      }
      case 'error': {
        const line = this.#tools.get(key);
        if (line) {
          line.state = 'failed';
          line.detail = obj.message;
          this.#drawTool(key);
        } else if (this.#options.printTurnErrors !== false) {
          this.#text(`\nerror: ${obj.message}\n`);
        }
        return;
      }
      case 'tool-end': {
        // How the call ended, from the runner: a cause the terminal knows better (an unexpected error's own text,
        // code that exited non-zero) wins over the message the model was given.
        const own = this.#failures.get(obj.toolCallId);
        let line = this.#tools.get(key);
        if (line === undefined) {
          // Answered without running (an unknown tool, over the cap): a line of its own. A merged call's work
          // shows on the call it was merged into.
          if (obj.error === undefined) return;
          this.#keysByCallId.set(obj.toolCallId, key);
          this.#callIdsByKey.set(key, obj.toolCallId);
          line = { label: obj.toolName, detail: '', state: 'running' };
          this.#tools.set(key, line);
        }
        if (line.state !== 'running') return;
        const cause = own ?? obj.error?.message;
        line.state = cause === undefined ? 'done' : 'failed';
        if (cause !== undefined) line.detail = oneLine(cause, 200);
        this.#drawTool(key);
        return;
      }
      case 'section-end': {
        const line = this.#tools.get(key);
        if (line && line.state === 'running') {
          const failure = this.#failures.get(this.#callIdsByKey.get(key) ?? '');
          line.state = failure === undefined ? 'done' : 'failed';
          if (failure !== undefined) line.detail = failure;
          this.#drawTool(key);
        }
        return;
      }
      case 'tool-mode':
        // Said in both modes, so a user comparing two turns can tell why the model saw different tools.
        this.#text(
          obj.mode === 'search'
            ? `tools: ${obj.total}, more than this model takes at once — offering tool_search, which loads the tools it finds\n`
            : `tools: ${obj.total}, all offered to the model (no tool search)\n`,
        );
        for (const tool of obj.setAside ?? []) this.#text(`  set aside: ${tool.name}: ${tool.reason}\n`);
        return;
      case 'stop':
        if (!this.#atLineStart) this.#text('\n');
        return;
      default:
        return;
    }
  }

  /**
   * Marks a call as failed with a cause only the terminal may show (an unexpected error's own message, the exit
   * status of code that ran); its line shows ✗ and this cause when the call ends, or at once when it already ended.
   */
  noteToolFailure(toolCallId: string, cause: string): void {
    this.#failures.set(toolCallId, cause);
    const key = this.#keysByCallId.get(toolCallId);
    const line = key === undefined ? undefined : this.#tools.get(key);
    if (key !== undefined && line?.state === 'done') {
      line.state = 'failed';
      line.detail = cause;
      this.#drawTool(key);
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

  /** Without a terminal, a message is written once nothing can change it any more. */
  #settleMessage(): void {
    const message = this.#message;
    if (!message || this.#options.interactive) return;
    this.#message = undefined;
    this.#text(message.text);
  }

  #currentMessage(): MessageState {
    if (!this.#message) this.#message = { text: '', shown: '', interrupted: false };
    return this.#message;
  }

  #messageText(text: string): void {
    this.#writingMessage = true;
    this.#text(text);
    this.#writingMessage = false;
  }

  #replaceMessage(content: string): void {
    const message = this.#currentMessage();
    message.text = nextMessageText(message.text, { type: 'message-replace', content }) ?? content;
    if (!this.#options.interactive) return;
    if (!message.interrupted && message.shown !== '') {
      // A terminal that does not report its size (0 columns: a bare pseudo-terminal) is taken as 80 wide, not 1.
      const rows = rowsOf(message.shown, this.#options.columns || process.stdout.columns || 80);
      this.#options.write(`${rows > 1 ? `\u001b[${rows - 1}A` : ''}\r\u001b[J`);
      this.#atLineStart = true;
    } else if (message.shown !== '' && !this.#atLineStart) {
      this.#write('\n');
    }
    message.shown = '';
    message.interrupted = false;
    this.#messageText(content);
    message.shown = content;
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
    if (this.#message && !this.#writingMessage) this.#message.interrupted = true;
    this.#options.write(text);
    this.#atLineStart = text.endsWith('\n');
  }
}

/** How many terminal rows `text` takes when written from the start of a row. */
function rowsOf(text: string, columns: number): number {
  const width = Math.max(1, columns);
  let rows = 0;
  for (const line of text.split('\n')) rows += Math.max(1, Math.ceil(line.length / width));
  return rows;
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
