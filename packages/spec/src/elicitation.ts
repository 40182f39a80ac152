/**
 * A question a tool's MCP server asks the user mid-call (MCP elicitation). `form`: fill in the fields of
 * `requestedSchema` (a flat object of strings, numbers, booleans and enums); `url`: open `url` (a page the server
 * serves, e.g. a sign-in) and say whether you did. Everything in it was written by the server: untrusted text.
 */
export type ElicitationQuestion =
  | {
      readonly mode: 'form';
      readonly message: string;
      readonly requestedSchema: ElicitationSchema;
      /** The MCP server that asks. */
      readonly serverName: string;
    }
  | {
      readonly mode: 'url';
      readonly message: string;
      readonly url: string;
      readonly serverName: string;
    };

/** The restricted JSON Schema of a form elicitation: one level of primitive properties. */
export interface ElicitationSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, ElicitationField>>;
  readonly required?: readonly string[];
}

/** One field of a form elicitation, as MCP allows it (string, number, integer, boolean, single or multi enum). */
export interface ElicitationField {
  readonly type?: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  readonly title?: string;
  readonly description?: string;
  readonly default?: unknown;
  readonly enum?: readonly string[];
  readonly enumNames?: readonly string[];
  readonly oneOf?: readonly { readonly const: string; readonly title?: string }[];
  readonly items?: {
    readonly type?: 'string';
    readonly enum?: readonly string[];
    readonly anyOf?: readonly { readonly const: string; readonly title?: string }[];
  };
  readonly format?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
}

/** A value of one form field. */
export type ElicitationValue = string | number | boolean | readonly string[];

/**
 * The user's answer: `accept` (with the form's content; none in URL mode), `decline` (said no), or `cancel`
 * (dismissed it, or nobody answered in time).
 */
export type ElicitationAnswer =
  | { readonly action: 'accept'; readonly content?: Readonly<Record<string, ElicitationValue>> | undefined }
  | { readonly action: 'decline' }
  | {
      readonly action: 'cancel';
      /** Nobody answered within the bounded wait (the server is told `cancel`; the model is told why). */
      readonly expired?: boolean;
    };

/**
 * How long a question waits for the user before the server gets `cancel` (5 minutes), wherever it is asked: the
 * server's elicitation hub (unless configured otherwise) and the CLI's prompt. Well under an MCP call's 10-minute
 * timeout, so the server hears the cancel before the call is given up.
 */
export const defaultElicitationTimeoutMs = 5 * 60_000;

/** How an elicitation ended, as its `elicitation-resolved` packet says: the answer's action, or `expired`. */
export type ElicitationResolution = 'accept' | 'decline' | 'cancel' | 'expired';

/**
 * Asks the user "where they are" (the CLI prompts, the server sends an `elicitation-request` packet and waits for
 * its answer route). Resolves `cancel` when nobody answers within the asker's own bounded wait; never rejects for
 * that. `signal` ends the wait when the call ends first.
 */
export type ElicitationAsker = (
  question: ElicitationQuestion,
  options: { readonly toolCallId: string; readonly signal: AbortSignal },
) => Promise<ElicitationAnswer>;
