/** Whether a cited source says what the sentence citing it claims. */
export type CitationVerdict = 'supported' | 'unsupported' | 'unverifiable';

/** The verdict on one (sentence, citation) pair of a report. */
export interface CitationCheck {
  readonly citationNumber: number;
  /** The cited document's id; absent when the number is known to no document. */
  readonly documentId?: string;
  /** The sentence that carries the citation, as written in the report. */
  readonly sentence: string;
  readonly verdict: CitationVerdict;
  /** How the verdict was reached: word overlap alone, the judging model, or neither (nothing to check against). */
  readonly method: 'lexical' | 'model' | 'none';
}
