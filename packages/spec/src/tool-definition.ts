/** A JSON Schema object, as sent to the model. */
export type JsonSchema = { readonly [key: string]: unknown };

/** A tool as the model sees it: the function definition that goes into the LLM request. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object (`type: "object"`, with `properties`). */
  readonly parameters: JsonSchema;
}
