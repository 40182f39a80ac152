/** A document a citeable tool found (an indexed chunk, a web result, a fetched page). */
export interface SearchDocument {
  /** Stable id; the same id across tools means the same document (open_url reuses its citation number). */
  readonly id: string;
  /** What a person recognises it by (title, file name, page title). */
  readonly title: string;
  readonly link?: string;
  /** A short excerpt shown in the UI. */
  readonly blurb: string;
  /** The text the model reads. */
  readonly content: string;
  /** Where it came from: `file`, `web`, `url`, a connector name... */
  readonly sourceType: string;
  readonly score?: number;
  readonly updatedAt?: string;
  readonly isInternet?: boolean;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** A document with the citation number the model uses to cite it (`[n]`). */
export interface CitedDocument extends SearchDocument {
  readonly citationNumber: number;
}
