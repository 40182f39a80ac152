import { ToolCallError } from '@toolbus/spec';

/** One problem with a call's arguments: where (a path into the arguments) and what. */
export interface ArgumentIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** Options for {@link invalidArgumentsError}. */
export interface InvalidArgumentsErrorOptions {
  readonly toolName: string;
  readonly issues: readonly ArgumentIssue[];
  readonly exampleArguments: Readonly<Record<string, unknown>>;
}

/**
 * The `ToolCallError` for arguments that do not fit a tool's schema. The model-facing message lists every
 * problem and shows a correct example call, so the model can fix the call in the next cycle.
 */
export function invalidArgumentsError(options: InvalidArgumentsErrorOptions): ToolCallError {
  const problems = options.issues.map((issue) => `- ${formatPath(issue.path)}: ${issue.message}`).join('\n');
  const example = JSON.stringify({ name: options.toolName, arguments: options.exampleArguments });
  return new ToolCallError({
    code: 'invalid_arguments',
    message: `Invalid arguments for tool "${options.toolName}":\n${problems}`,
    modelMessage: `The arguments for "${options.toolName}" are invalid:\n${problems}\nCall it like this: ${example}`,
  });
}

function formatPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return '(arguments)';
  return path
    .map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join('');
}
