// The answer repair's public names, listed once: the root (`@toolbus/core`) and the lighter `@toolbus/core/repair`
// both re-export this list, so a name added to the repair reaches both entries and the two cannot drift apart.
export type {
  AnswerRepairEnd,
  AnswerRepairEndOptions,
  AnswerRepairOptions,
  AnswerRepairOutput,
} from './middleware/answer-repair.ts';
export { AnswerRepair } from './middleware/answer-repair.ts';
export type { ExtractedToolCall, ToolCallTextParser } from './recovery/extracted-tool-call.ts';
export type {
  ChatTemplateSource,
  ReadServedChatTemplateOptions,
  RecoveryDialects,
  ServedChatTemplate,
  TemplateDialectCache,
} from './recovery/served-chat-template.ts';
export {
  createTemplateDialectCache,
  readServedChatTemplate,
  recoveryDialectsFor,
} from './recovery/served-chat-template.ts';
