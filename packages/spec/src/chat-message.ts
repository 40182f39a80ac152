/** A file attached to the chat (uploaded by the user), by reference. */
export interface ChatFile {
  readonly id: string;
  readonly name: string;
  readonly mediaType: string;
  readonly sizeBytes?: number;
}

/** A tool call as the assistant wrote it, in history. */
export interface AssistantToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** One message of a conversation, provider-neutral. Providers' own formats are produced from these. */
export type ChatMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string; readonly files?: readonly ChatFile[] }
  | {
      readonly role: 'assistant';
      readonly content: string;
      readonly reasoning?: string;
      readonly toolCalls?: readonly AssistantToolCall[];
    }
  | {
      readonly role: 'tool';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly content: string;
    };
