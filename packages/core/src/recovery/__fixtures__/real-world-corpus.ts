import { omitUndefined } from '@toolbus/spec';
import { readdirSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { ToolDefinition } from '@toolbus/spec';
import { AnswerStreamFilter } from '../../streaming/answer-stream-filter.ts';
import type { LlmStepResult } from '../../turn/llm-step.ts';
import { finalAnswerText } from '../../turn/final-answer.ts';
import { recoverStep } from '../../turn/recover-step-tool-calls.ts';
import { StepPlacement } from '../../turn/step-placement.ts';
import type { ExtractedToolCall } from '../extracted-tool-call.ts';
import { findModelProfile } from '../model-profiles.ts';

/**
 * One model output quoted verbatim in a public issue, pull request or parser test of an inference server, agent
 * tool or model vendor, where a tool call leaked into the text or broke a parser (or, for a negative, text that
 * shows, quotes, explains or rejects a call without making one).
 */
export interface RealWorldCase {
  readonly id: string;
  /** Where the text was quoted (issue, pull request or test fixture URL). */
  readonly source: string;
  /** The model as the report names it. */
  readonly model: string;
  /** The model family the file groups it under (the file name). */
  readonly family: string;
  /** The tools declared in the request, minimal; `toolsInferred` when the report did not list them. */
  readonly tools: readonly ToolDefinition[];
  readonly toolsInferred: boolean;
  readonly text: string;
  /** The calls the model made, in order; empty for a negative. */
  readonly calls: readonly ExtractedToolCall[];
  /** What the user should end up seeing (whitespace aside); absent: the text exactly as written. */
  readonly prose?: string;
  /**
   * Why a case without calls is one: `quoted`, `rejected`, `mention`, `data`, `undeclared`, `imitation`,
   * `answer` (a plain answer), `unreadable` (call markup too broken to read: no call is invented, the text stays).
   */
  readonly negative?: string;
  readonly note?: string;
}

interface CorpusFile {
  readonly family: string;
  readonly cases: ReadonlyArray<Omit<RealWorldCase, 'family' | 'tools'> & { tools: RawTool[] }>;
}

interface RawTool {
  readonly name: string;
  readonly description?: string;
  readonly parameters: Record<string, unknown>;
}

const directory = new URL('./real-world/', import.meta.url);

/** Every case of `__fixtures__/real-world/*.json`, file by file in name order. */
export function loadRealWorldCorpus(): RealWorldCase[] {
  const cases: RealWorldCase[] = [];
  for (const file of readdirSync(directory).sort()) {
    if (!file.endsWith('.json')) continue;
    const parsed = JSON.parse(readFileSync(new URL(file, directory), 'utf8')) as CorpusFile;
    for (const entry of parsed.cases) {
      const tools = entry.tools.map((tool) => ({
        name: tool.name,
        description: tool.description ?? tool.name,
        parameters: tool.parameters,
      })) as ToolDefinition[];
      cases.push({ ...entry, family: parsed.family, tools });
    }
  }
  return cases;
}

/** The chunk sizes the display is scored at. */
export const corpusChunkSizes: readonly number[] = [1, 7, 64];

/** What one case scored. */
export interface CaseScore {
  readonly id: string;
  readonly family: string;
  /** Expected calls, and of those the ones extracted at their place with the right name and arguments. */
  readonly expected: number;
  readonly right: number;
  /** Calls extracted beyond or instead of the expected ones (on a negative: false calls). */
  readonly extra: number;
  /** Per chunk size: whether the user ended up seeing exactly the expected prose (whitespace aside). */
  readonly clean: readonly boolean[];
  readonly shown: readonly string[];
  readonly extracted: readonly ExtractedToolCall[];
}

/** The recovery functions scored (the current code, or a snapshot of an earlier one in the benchmark). */
export interface RecoveryUnderTest {
  readonly createFilter: (options: {
    tools: readonly ToolDefinition[];
    preferredDialects?: readonly string[];
  }) => { process(chunk: string): string; flush(): string; takeReasoning(): string };
  readonly profileDialects: (model: string) => readonly string[] | undefined;
  /** The turn's recovery of a step's text (`recoverStep`): the calls and the prose the screen ends with. */
  readonly recoverStep: (options: {
    step: { rawAnswer: string; answer: string; reasoning: string; finishReason: string };
    definitions: readonly ToolDefinition[];
    preferredDialects?: readonly string[];
  }) => { calls: readonly ExtractedToolCall[]; prose: string; shown: boolean };
  /** The answer a turn ends with when the step made no call (`finishWithAnswer`). */
  readonly finalAnswer: (answer: string, rawAnswer: string, tools: readonly ToolDefinition[]) => string;
}

const placement = new StepPlacement();

export const currentRecovery: RecoveryUnderTest = {
  createFilter: (options) => new AnswerStreamFilter(options),
  profileDialects: (model) => findModelProfile(model)?.dialects,
  recoverStep: (options) =>
    recoverStep({ ...options, step: options.step as LlmStepResult, turn: 0, placement }),
  finalAnswer: (answer, rawAnswer, tools) => finalAnswerText({ answer, rawAnswer }, tools).answer,
};

/**
 * Scores one case the way a turn handles the text: the answer filter streams it in chunks (what the user sees
 * while it streams), the turn's `recoverStep` reads it (raw text, shown answer, reasoning) and, when it found
 * calls in what was shown, retracts them (the prose that replaces the message); a step without calls ends the
 * turn with its answer (`finishWithAnswer`: empty-answer recovery, template-opened thinking split off).
 */
export function scoreCase(entry: RealWorldCase, recovery: RecoveryUnderTest = currentRecovery): CaseScore {
  const dialects = recovery.profileDialects(entry.model);
  const options = omitUndefined({ preferredDialects: dialects });
  const shown: string[] = [];
  const clean: boolean[] = [];
  let extracted: readonly ExtractedToolCall[] = [];
  for (const size of corpusChunkSizes) {
    const filter = recovery.createFilter({ tools: entry.tools, ...options });
    let answer = '';
    let reasoning = '';
    for (let at = 0; at < entry.text.length; at += size) {
      answer += filter.process(entry.text.slice(at, at + size));
      reasoning += filter.takeReasoning();
    }
    answer += filter.flush();
    reasoning += filter.takeReasoning();
    const recovered = recovery.recoverStep({
      step: { rawAnswer: entry.text, answer, reasoning, finishReason: 'stop' },
      definitions: entry.tools,
      ...options,
    });
    extracted = recovered.calls;
    const display =
      extracted.length === 0
        ? recovery.finalAnswer(answer, entry.text, entry.tools)
        : recovered.shown
          ? recovered.prose
          : answer;
    shown.push(display);
    clean.push(normalize(display) === normalize(entry.prose ?? entry.text));
  }
  const calls = extracted.map((call) => ({ name: call.name, arguments: call.arguments }));
  let right = 0;
  entry.calls.forEach((call, index) => {
    if (isDeepStrictEqual(calls[index], call)) right++;
  });
  return {
    id: entry.id,
    family: entry.family,
    expected: entry.calls.length,
    right,
    extra: Math.max(0, calls.length - right),
    clean,
    shown,
    extracted: calls,
  };
}

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The corpus totals: calls extracted right, clean displays per chunk size, false calls on the negatives. */
export interface CorpusScore {
  readonly cases: number;
  readonly negatives: number;
  readonly expected: number;
  readonly right: number;
  /** Clean displays per chunk size, in the order of {@link corpusChunkSizes}. */
  readonly clean: readonly number[];
  /** Calls extracted from negatives. */
  readonly falseCalls: number;
  /** Calls extracted beyond the expected ones from cases that make calls. */
  readonly extraCalls: number;
  readonly scores: readonly CaseScore[];
}

export function scoreCorpus(
  cases: readonly RealWorldCase[],
  recovery: RecoveryUnderTest = currentRecovery,
): CorpusScore {
  const scores = cases.map((entry) => scoreCase(entry, recovery));
  const sum = (pick: (score: CaseScore, index: number) => number) =>
    scores.reduce((total, score, index) => total + pick(score, index), 0);
  return {
    cases: cases.length,
    negatives: cases.filter((entry) => entry.calls.length === 0).length,
    expected: sum((score) => score.expected),
    right: sum((score) => score.right),
    clean: corpusChunkSizes.map((_, size) => sum((score) => (score.clean[size] ? 1 : 0))),
    falseCalls: sum((score, index) => (cases[index]!.calls.length === 0 ? score.extracted.length : 0)),
    extraCalls: sum((score, index) => (cases[index]!.calls.length > 0 ? score.extra : 0)),
    scores,
  };
}
