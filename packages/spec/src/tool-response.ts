import type { FileReference } from './packet.ts';
import type { CitedDocument } from './search-document.ts';

/** Why a call produced no real result; every such call still answers the model. */
export type ToolFailureKind =
  | 'invalid-arguments'
  | 'call-error'
  | 'execution-error'
  | 'unexpected-error'
  | 'timeout'
  | 'unknown-tool'
  | 'over-cap'
  | 'aborted';

/** The typed object a tool hands to storage and the UI (the model never sees it). */
export type RichResponse =
  | { readonly type: 'documents'; readonly documents: readonly CitedDocument[] }
  | {
      readonly type: 'python-execution';
      readonly stdout: string;
      readonly stderr: string;
      readonly exitCode: number | null;
      readonly timedOut: boolean;
      readonly files: readonly FileReference[];
    }
  | {
      readonly type: 'images';
      readonly images: readonly (FileReference & {
        readonly revisedPrompt?: string;
        readonly shape?: string;
      })[];
    }
  | {
      readonly type: 'file-read';
      readonly fileId: string;
      readonly fileName: string;
      readonly startChar: number;
      readonly endChar: number;
      readonly totalChars: number;
    }
  | {
      readonly type: 'memory';
      readonly operation: 'add' | 'update';
      readonly memoryId: string;
      readonly text: string;
    }
  | {
      readonly type: 'custom-tool';
      readonly responseType: 'json' | 'text' | 'csv' | 'image';
      readonly data: unknown;
      readonly files: readonly FileReference[];
    }
  | { readonly type: 'agent-report'; readonly report: string; readonly documents: readonly CitedDocument[] }
  | { readonly type: 'merged'; readonly intoCallId: string }
  | {
      readonly type: 'failure';
      readonly kind: ToolFailureKind;
      readonly message: string;
      readonly code?: string;
    }
  | { readonly type: 'json'; readonly data: unknown };

/** What a tool returns: a string for the model, and optionally a typed object for storage and the UI. */
export interface ToolResponse {
  readonly llmFacing: string;
  readonly rich?: RichResponse;
}
