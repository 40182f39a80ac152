import type { LanguageModelV4 } from '@ai-sdk/provider';
import { CitationMarkerScanner, defineTool, nullPacketSink, type RunChatTurnOptions } from '@toolbus/core';
import { runStandaloneStep } from '@toolbus/core/step';
import type { CitationCheck, CitedDocument } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import * as z from 'zod';
import { figuresDisagree } from './claim-figures.ts';

/** A sentence covered this well by its source's words is taken as supported without asking a model. */
export const LEXICAL_SUPPORT_THRESHOLD = 0.8;

/** Options for {@link checkCitationSupport}. */
export interface CheckCitationSupportOptions {
  readonly text: string;
  /** The documents the text cites, by number; their `content` is what the agents read. */
  readonly documents: ReadonlyMap<number, CitedDocument>;
  /** The judge. */
  readonly model: LanguageModelV4;
  /** Citations per model call. */
  readonly batchSize: number;
  /** Model calls in all; citations past them stay `unverifiable`. */
  readonly maxCalls: number;
  readonly prompt: string;
  readonly signal?: AbortSignal;
  readonly stream?: RunChatTurnOptions['stream'];
}

interface Pending {
  readonly index: number;
  readonly sentence: string;
  readonly source: string;
  readonly base: Omit<CitationCheck, 'verdict' | 'method'>;
}

const verdictParameters = z.object({
  verdicts: z.array(z.object({ claim: z.number().int(), verdict: z.enum(['supported', 'unsupported']) })),
});

const verdictTool = defineTool({
  name: 'record_citation_verdicts',
  description: 'Record one verdict per numbered claim.',
  parameters: verdictParameters,
  run: () => 'Recorded.',
});

/**
 * Checks each citation of a report against the text of the source it cites. Each sentence carrying a marker is
 * paired with every number in it. A cheap lexical pre-filter passes sentences whose words the source almost all
 * contains and whose figures, dates and negations agree with it (`claim-figures.ts`); the rest go to the judging model in batches of `batchSize` (one call per batch, at most `maxCalls`),
 * which answers through a tool call. A citation with no source text, past the budget, or whose judgement failed
 * is `unverifiable`. Nothing is removed from the report: the verdicts are data for the UI and the result.
 */
export async function checkCitationSupport(options: CheckCitationSupportOptions): Promise<CitationCheck[]> {
  const checks: (CitationCheck | undefined)[] = [];
  const pending: Pending[] = [];
  for (const sentence of sentencesOf(options.text)) {
    const numbers = [...new Set(new CitationMarkerScanner().process(`${sentence}\n`))];
    if (numbers.length === 0) continue;
    const claim = withoutMarkers(sentence);
    for (const citationNumber of numbers) {
      const document = options.documents.get(citationNumber);
      const base = { citationNumber, sentence: claim, ...omitUndefined({ documentId: document?.id }) };
      const source = document ? `${document.title}\n${document.content}` : '';
      const words = contentWords(claim);
      if (!document?.content.trim() || words.length === 0) {
        checks.push({ ...base, verdict: 'unverifiable', method: 'none' });
        continue;
      }
      const sourceWords = new Set(contentWords(source));
      const coverage = words.filter((word) => sourceWords.has(word)).length / words.length;
      const passage = excerpt(source, words);
      // Shared words vouch for the wording only: figures, months and negations must agree too, or the judge reads it.
      if (coverage >= LEXICAL_SUPPORT_THRESHOLD && figuresDisagree(claim, source, passage) === undefined) {
        checks.push({ ...base, verdict: 'supported', method: 'lexical' });
        continue;
      }
      checks.push(undefined);
      pending.push({ index: checks.length - 1, sentence: claim, source: passage, base });
    }
  }
  const byIndex = new Map<number, Pending>(pending.map((entry) => [entry.index, entry]));
  for (
    let start = 0, calls = 0;
    start < pending.length && calls < options.maxCalls;
    start += options.batchSize
  ) {
    calls += 1;
    const batch = pending.slice(start, start + options.batchSize);
    const verdicts = await judge(batch, options);
    batch.forEach((entry, position) => {
      const verdict = verdicts.get(position + 1);
      if (verdict) checks[entry.index] = { ...entry.base, verdict, method: 'model' };
    });
  }
  return checks.map(
    (check, index) =>
      check ?? { ...(byIndex.get(index) as Pending).base, verdict: 'unverifiable', method: 'none' },
  );
}

async function judge(
  batch: readonly Pending[],
  options: CheckCitationSupportOptions,
): Promise<Map<number, 'supported' | 'unsupported'>> {
  const claims = batch
    .map(
      (entry, position) =>
        `Claim ${position + 1}: ${entry.sentence}\nSource ${position + 1}: ${entry.source}`,
    )
    .join('\n\n');
  const step = await runStandaloneStep({
    model: options.model,
    system: options.prompt,
    user: claims,
    tools: [verdictTool],
    toolChoice: 'required',
    sink: nullPacketSink,
    ...omitUndefined({ signal: options.signal }),
    stream: { ...options.stream, maxOutputTokens: 200 + 40 * batch.length },
  });
  const verdicts = new Map<number, 'supported' | 'unsupported'>();
  for (const call of step.toolCalls) {
    const parsed = verdictParameters.safeParse(call.arguments);
    if (!parsed.success) continue;
    for (const { claim, verdict } of parsed.data.verdicts) {
      if (claim >= 1 && claim <= batch.length && !verdicts.has(claim)) verdicts.set(claim, verdict);
    }
  }
  return verdicts;
}

/** Sentences of a text: split after ., ! or ? (and their full-width forms) and at line breaks. */
function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
}

const markerPattern =
  /(\[\[|【【|［［|\[|【|［)\s*\d+(?:\s*,\s*\d+)*\s*(\]\]|】】|］］|\]|】|］)(\([^)]*\))?/g;

function withoutMarkers(sentence: string): string {
  return sentence
    .replace(markerPattern, '')
    .replace(/\s+([.,;:!?])/g, '$1')
    .trim();
}

const stopWords = new Set(
  'the and for are but not you all any can had her was one our out has have from this that with they them then than there their what when where which while will would about into over also been were its his she who how may more most some such only other these those very just each'.split(
    ' ',
  ),
);

function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).filter((word) => !stopWords.has(word));
}

/** The three source sentences sharing most words with the claim, in source order (what the judge reads). */
function excerpt(source: string, claimWords: readonly string[]): string {
  const wanted = new Set(claimWords);
  const sentences = sentencesOf(source);
  const scored = sentences.map((sentence, index) => ({
    index,
    score: contentWords(sentence).filter((word) => wanted.has(word)).length,
  }));
  const top = scored
    .sort((left, right) => right.score - left.score || left.index - right.index)
    .slice(0, 3)
    .sort((left, right) => left.index - right.index);
  const text = top.map(({ index }) => sentences[index]).join(' ');
  return text.length > 1200 ? `${text.slice(0, 1200)}…` : text;
}
