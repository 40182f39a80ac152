/** The `get_weather` tool every gateway test declares. */
export const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather for a city.',
    parameters: {
      type: 'object' as const,
      properties: { city: { type: 'string' as const } },
      required: ['city'],
      additionalProperties: false,
    },
  },
};

/**
 * Answers that call `get_weather` with `{city: "Oslo"}` written as text, one per dialect (each as its model family
 * writes it; the same forms are the recovery's dialect fixtures in core).
 */
export const textCallDialects: readonly { readonly dialect: string; readonly model: string; readonly text: string }[] = [
  { dialect: 'hermes', model: 'qwen2.5-7b-instruct', text: 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>' },
  { dialect: 'qwen3-coder xml', model: 'qwen3-coder-30b', text: '<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>' },
  { dialect: 'mistral', model: 'mistral-small', text: '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "a1b2c3d4e"}]' },
  { dialect: 'llama python_tag', model: 'llama-3.1-8b', text: '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}<|eom_id|>' },
  { dialect: 'pythonic', model: 'llama-3.2-3b', text: '[get_weather(city="Oslo")]' },
  { dialect: 'deepseek', model: 'deepseek-v3', text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Oslo"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>' },
  { dialect: 'kimi', model: 'kimi-k2', text: '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>' },
  { dialect: 'glm', model: 'glm-4.5', text: '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>' },
  { dialect: 'harmony', model: 'gpt-oss-20b', text: '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>' },
  { dialect: 'granite', model: 'granite-3.3-8b', text: '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]' },
  // Calls on a line after prose: ReAct (LangChain's classic agents), Command R's fenced list, Functionary's recipient.
  { dialect: 'react', model: 'llama-2-13b-chat', text: 'Thought: I need the weather in Oslo.\nAction: get_weather\nAction Input: {"city": "Oslo"}' },
  { dialect: 'command-r', model: 'command-r-plus', text: 'I will look it up.\nAction: ```json\n[{"tool_name": "get_weather", "parameters": {"city": "Oslo"}}]\n```' },
  // Cline's and Roo Code's prompts teach the tool's own element, its parameters as children.
  { dialect: 'cline', model: 'qwen2.5-coder-32b', text: "I'll look that up.\n\n<get_weather>\n<city>Oslo</city>\n</get_weather>" },
  { dialect: 'functionary after prose', model: 'functionary-small-v3.2', text: 'Let me check.\n>>>get_weather\n{"city": "Oslo"}' },
];

/** Markup that must never reach a client's text. */
export const markupPattern =
  /<\/?tool_call|\[TOOL_CALLS\]|<\|python_tag\||tool▁|<\|tool_call|<\|channel\||<function=|<arg_key>|get_weather\(|Action( Input)?:|>>>|<\/?get_weather>/;

/** A Hermes `<tool_call>` block calling `get_weather` for `city`, as Qwen2.5 writes it. */
export const hermesCall = (city: string): string =>
  `<tool_call>\n{"name": "get_weather", "arguments": {"city": "${city}"}}\n</tool_call>`;
