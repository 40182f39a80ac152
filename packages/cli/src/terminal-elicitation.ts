import { createInterface, type Interface } from 'node:readline';
import {
  checkElicitationContent,
  defaultElicitationTimeoutMs,
  type ElicitationAnswer,
  type ElicitationAsker,
  type ElicitationField,
  type ElicitationQuestion,
  elicitationChoices,
  elicitationItemChoices,
} from '@toolbus/spec';
import type { CliIo } from './cli-io.ts';

/** How often a form is asked again after answers that do not fit it, before the question is cancelled. */
const maxFormAttempts = 3;

/** The CLI's elicitation asker, and how to let go of stdin once the chat ends. */
export interface TerminalElicitation {
  readonly ask: ElicitationAsker;
  close(): void;
}

/**
 * Asks an MCP server's question at the terminal: a form field by field (from the requested schema: its title,
 * choices and default), or a URL shown with a request for consent (never opened for the user). Lines come from
 * stdin, a terminal or a pipe, unless stdin already carried the chat's question (`stdinFree: false`): then nobody
 * can answer and the question is cancelled, with a note. Prompts go to stderr, so the answer on stdout stays
 * clean. The wait is bounded like the server's ({@link defaultElicitationTimeoutMs}); the server then gets cancel.
 */
export function createTerminalElicitation(
  io: CliIo,
  options: { readonly stdinFree: boolean; readonly timeoutMs?: number },
): TerminalElicitation {
  const timeoutMs = options.timeoutMs ?? defaultElicitationTimeoutMs;
  let lines: LineReader | undefined;
  const ask: ElicitationAsker = async (question, { signal }) => {
    const stdin = io.stdin;
    const asker = `MCP server "${printable(question.serverName)}"`;
    if (stdin === undefined || !options.stdinFree) {
      io.stderr.write(
        `\n${asker} asked: ${printable(question.message)}\nThere is no terminal to answer it, so it was cancelled.\n`,
      );
      return { action: 'cancel' };
    }
    lines ??= new LineReader(stdin, stdin.isTTY === true ? io.stderr : undefined);
    const reader = lines;
    const expiry = AbortSignal.timeout(timeoutMs);
    const wait = AbortSignal.any([signal, expiry]);
    try {
      const answer =
        question.mode === 'url'
          ? await askUrl(io, reader, asker, question, wait)
          : await askForm(io, reader, asker, question, wait);
      return answer;
    } catch {
      if (expiry.aborted) {
        io.stderr.write(
          `\nNo answer within ${Math.round(timeoutMs / 1000)} s: the question was cancelled.\n`,
        );
        return { action: 'cancel', expired: true };
      }
      return { action: 'cancel' };
    }
  };
  return {
    ask,
    close() {
      lines?.close();
    },
  };
}

async function askUrl(
  io: CliIo,
  lines: LineReader,
  asker: string,
  question: Extract<ElicitationQuestion, { mode: 'url' }>,
  signal: AbortSignal,
): Promise<ElicitationAnswer> {
  io.stderr.write(
    `\n${asker} asks you to open a web page: ${printable(question.message)}\n  ${printable(question.url)}\n`,
  );
  const reply = (
    await lines.question(io, 'Open it yourself, then: continue? [y]es / [N]o / [c]ancel ', signal)
  )
    .trim()
    .toLowerCase();
  return decision(reply, 'no');
}

async function askForm(
  io: CliIo,
  lines: LineReader,
  asker: string,
  question: Extract<ElicitationQuestion, { mode: 'form' }>,
  signal: AbortSignal,
): Promise<ElicitationAnswer> {
  io.stderr.write(`\n${asker} asks: ${printable(question.message)}\n`);
  const start = (await lines.question(io, 'Answer? [Y]es / [n]o (decline) / [c]ancel ', signal))
    .trim()
    .toLowerCase();
  const chosen = decision(start, 'yes');
  if (chosen.action !== 'accept') return chosen;
  const schema = question.requestedSchema;
  for (let attempt = 1; attempt <= maxFormAttempts; attempt += 1) {
    const content: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(schema.properties)) {
      const required = schema.required?.includes(name) === true;
      const reply = (await lines.question(io, fieldPrompt(name, field, required), signal)).trim();
      if (reply !== '') content[name] = parseField(field, reply);
    }
    const checked = checkElicitationContent(schema, content);
    if (checked.ok) return { action: 'accept', content: checked.content };
    io.stderr.write(`That does not fit the form: ${checked.problems.map(printable).join('; ')}.\n`);
  }
  io.stderr.write('The form was cancelled.\n');
  return { action: 'cancel' };
}

function decision(reply: string, empty: 'yes' | 'no'): ElicitationAnswer {
  const answer = reply === '' ? empty : reply;
  if (answer === 'y' || answer === 'yes') return { action: 'accept' };
  if (answer === 'c' || answer === 'cancel') return { action: 'cancel' };
  return { action: 'decline' };
}

/** "  Guests (1–12, default 2): ", with the choices numbered for an enum field. */
function fieldPrompt(name: string, field: ElicitationField, required: boolean): string {
  const label = printable(field.title ?? name);
  const hints: string[] = [];
  if (field.description) hints.push(printable(field.description));
  const choices = elicitationChoices(field) ?? elicitationItemChoices(field);
  const titled = field.oneOf ?? field.items?.anyOf;
  const titles = field.enumNames ?? titled?.map((option) => option.title ?? option.const);
  if (choices) {
    hints.push(
      choices.map((choice, index) => `${index + 1}=${printable(titles?.[index] ?? choice)}`).join(' '),
    );
    if (field.type === 'array') hints.push('several: comma-separated');
  }
  if (field.type === 'boolean') hints.push('y/n');
  if (field.default !== undefined) hints.push(`default ${printable(JSON.stringify(field.default))}`);
  else if (required) hints.push('required');
  return `  ${label}${hints.length > 0 ? ` (${hints.join('; ')})` : ''}: `;
}

/** A typed reply as the field's value; what does not parse is kept as typed, for the form check to name. */
function parseField(field: ElicitationField, reply: string): unknown {
  const choose = (choices: readonly string[] | undefined, item: string) => {
    const index = Number(item);
    return choices && Number.isInteger(index) && index >= 1 && index <= choices.length
      ? choices[index - 1]
      : item;
  };
  if (field.type === 'boolean') {
    if (/^(y|yes|true)$/i.test(reply)) return true;
    if (/^(n|no|false)$/i.test(reply)) return false;
    return reply;
  }
  if (field.type === 'number' || field.type === 'integer') {
    const number = Number(reply);
    return Number.isFinite(number) ? number : reply;
  }
  if (field.type === 'array') {
    const choices = elicitationItemChoices(field);
    return reply.split(',').map((item) => choose(choices, item.trim()));
  }
  return choose(elicitationChoices(field), reply);
}

/** The server's words as one safe terminal line: no escape sequences or control characters reach the terminal. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').slice(0, 2000);
}

/**
 * Lines of stdin, one reader for the whole chat: a pipe may hold every answer in one chunk, and a reader opened per
 * question would lose the lines after its own. On a terminal, what is typed echoes to stderr with the prompts.
 */
class LineReader {
  readonly #readline: Interface;
  /** Whether the terminal echoes what is typed (else each answer's line is ended on stderr, for a readable log). */
  readonly #echo: boolean;
  readonly #queued: string[] = [];
  #waiter: ((line: string | undefined) => void) | undefined;
  #closed = false;

  constructor(input: NodeJS.ReadableStream, echo: CliIo['stderr'] | undefined) {
    this.#echo = echo !== undefined;
    this.#readline = createInterface({
      input,
      ...(echo ? { output: echo as NodeJS.WritableStream, terminal: true } : { terminal: false }),
    });
    this.#readline.on('line', (line) => {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      if (waiter) waiter(line);
      else this.#queued.push(line);
    });
    this.#readline.on('close', () => {
      this.#closed = true;
      this.#waiter?.(undefined);
    });
  }

  /** Writes the prompt (stderr) and resolves with the next line; rejects when stdin ends or `signal` aborts first. */
  async question(io: CliIo, prompt: string, signal: AbortSignal): Promise<string> {
    io.stderr.write(prompt);
    const line = await this.#next(signal);
    if (!this.#echo) io.stderr.write('\n');
    return line;
  }

  #next(signal: AbortSignal): Promise<string> {
    return new Promise((resolve, reject) => {
      const queued = this.#queued.shift();
      if (queued !== undefined) {
        resolve(queued);
        return;
      }
      if (this.#closed) {
        reject(new Error('stdin ended'));
        return;
      }
      const onAbort = () => {
        this.#waiter = undefined;
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiter = (line) => {
        signal.removeEventListener('abort', onAbort);
        if (line === undefined) reject(new Error('stdin ended'));
        else resolve(line);
      };
    });
  }

  close(): void {
    this.#readline.close();
  }
}
