import type { ExtractedToolCall } from '../extracted-tool-call.ts';

/**
 * One answer a model wrote with its tool calls as text: the dialect (parser name) that reads it, the model
 * family whose published chat template or tool-calling documentation defines the format, the text, the calls
 * in it and what the user should see once the calls are recovered (the prose around them). Written from the
 * templates' formats, with the shared test tools (`get_weather`, `get_time`, `internal_search`, `list_files`).
 */
export interface DialectFixture {
  readonly name: string;
  readonly dialect: string;
  /** A model id the family's profile matches. */
  readonly model: string;
  readonly text: string;
  readonly calls: readonly ExtractedToolCall[];
  /** What the answer stream filter shows while the answer streams, whatever the chunking. */
  readonly visible: string;
  /**
   * What the message says once the calls found in the shown text are cut out of it (the retraction the turn
   * loop sends), trimmed, when that differs from `visible`: markup a dialect has no stream marker for is shown
   * first, then retracted.
   */
  readonly prose?: string;
  /**
   * The reasoning the stream filter hands out (`takeReasoning`), when the text holds reasoning markup such as
   * Harmony's analysis channel: whatever the chunking, it is exactly this, and never shown.
   */
  readonly reasoning?: string;
  /**
   * The text holds a chat format's control tokens (Harmony's channel headers and end tokens), which are never
   * shown even when no call is in it: a fixture without calls then does not stream unchanged.
   */
  readonly controlTokens?: boolean;
}

/** The call most fixtures write: the weather in Oslo. */
export const oslo: ExtractedToolCall = { name: 'get_weather', arguments: { city: 'Oslo' } };
/** The second call of the fixtures that write two: the time in CET. */
export const cet: ExtractedToolCall = { name: 'get_time', arguments: { tz: 'CET' } };

/** One fixture per dialect, in the form its model family's template writes. */
export const dialectFixtures: readonly DialectFixture[] = [
  {
    name: 'Hermes 2 Pro / Qwen2.5 <tool_call> JSON',
    dialect: 'hermes',
    model: 'qwen2.5:7b',
    text: 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
    calls: [oslo],
    visible: 'Let me check.\n',
  },
  {
    name: 'Qwen3-Coder XML parameters',
    dialect: 'function-tag',
    model: 'Qwen/Qwen3-Coder-30B-A3B-Instruct',
    text: '<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>',
    calls: [{ name: 'get_weather', arguments: { city: 'Oslo', days: 3 } }],
    visible: '',
  },
  {
    name: 'Seed-OSS <seed:tool_call>',
    dialect: 'function-tag',
    model: 'ByteDance-Seed/Seed-OSS-36B-Instruct',
    text: '<seed:tool_call>\n<function=get_weather>\n<parameter=city>Oslo</parameter>\n</function>\n</seed:tool_call>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Mistral v0.3 [TOOL_CALLS] array',
    dialect: 'mistral',
    model: 'mistral:7b-instruct-v0.3',
    text: '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "a1b2c3d4e"}]',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Mistral Small 3.2 / Devstral [TOOL_CALLS]name[ARGS]{json}',
    dialect: 'mistral-args',
    model: 'mistral-small3.2:24b',
    text: '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}[TOOL_CALLS]get_time[ARGS]{"tz": "CET"}',
    calls: [oslo, cet],
    visible: '',
  },
  {
    name: 'Llama 3.1 JSON after <|python_tag|>',
    dialect: 'llama3-json',
    model: 'llama3.1:8b',
    text: '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}<|eom_id|>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Llama 3.2 pythonic list',
    dialect: 'pythonic',
    model: 'llama3.2:3b',
    text: '[get_weather(city="Oslo"), get_time(tz="CET")]',
    calls: [oslo, cet],
    visible: '',
  },
  {
    name: 'Llama 4 <|python_start|> pythonic',
    dialect: 'pythonic',
    model: 'meta-llama/Llama-4-Scout-17B-16E-Instruct',
    text: '<|python_start|>[get_weather(city="Oslo")]<|python_end|>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'LFM2 <|tool_call_start|>',
    dialect: 'pythonic',
    model: 'LiquidAI/LFM2-1.2B',
    text: '<|tool_call_start|>[get_weather(city="Oslo")]<|tool_call_end|>Checking the forecast.',
    calls: [oslo],
    visible: 'Checking the forecast.',
  },
  {
    name: 'Gemma 4 <|tool_call>call:name{…}',
    dialect: 'gemma',
    model: 'gemma4:12b',
    text: '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,days:2}<tool_call|>',
    calls: [{ name: 'get_weather', arguments: { city: 'Oslo', days: 2 } }],
    visible: '',
  },
  {
    name: 'FunctionGemma <start_function_call>',
    dialect: 'gemma',
    model: 'google/functiongemma-270m-it',
    text: '<start_function_call>call:get_weather{city:<escape>Oslo<escape>}<end_function_call>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Granite 3 <|tool_call|>',
    dialect: 'granite',
    model: 'granite3.3:8b',
    text: '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Granite 20B function-calling <function_call>',
    dialect: 'granite-20b-fc',
    model: 'ibm-granite/granite-20b-functioncalling',
    text: '<function_call> {"name": "get_weather", "arguments": {"city": "Oslo"}} </function_call>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'DeepSeek V3 / R1 fenced arguments',
    dialect: 'deepseek',
    model: 'deepseek-r1:14b',
    text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Oslo"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'DeepSeek V3.1 name<｜tool▁sep｜>{json}',
    dialect: 'deepseek',
    model: 'deepseek-ai/DeepSeek-V3.1',
    text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Oslo"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Kimi K2 sections',
    dialect: 'kimi',
    model: 'moonshotai/Kimi-K2-Instruct',
    text: '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'GLM-4.5 <arg_key>/<arg_value>',
    dialect: 'named-tool-call-tag',
    model: 'zai-org/GLM-4.5-Air',
    text: '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'gpt-oss Harmony commentary channel',
    dialect: 'harmony',
    model: 'gpt-oss:20b',
    text: '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Anthropic-style <function_calls> XML',
    dialect: 'xml-invoke',
    model: 'claude-3-haiku',
    text: 'One moment.<function_calls><invoke name="get_weather"><parameter name="city">Oslo</parameter></invoke></function_calls>',
    calls: [oslo],
    visible: 'One moment.',
  },
  {
    name: 'MiniMax-M2 <minimax:tool_call>',
    dialect: 'xml-invoke',
    model: 'MiniMaxAI/MiniMax-M2',
    text: '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Oslo</parameter>\n</invoke>\n</minimax:tool_call>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Qwen-Agent ✿FUNCTION✿ / ✿ARGS✿',
    dialect: 'qwen-agent',
    model: 'qwen2.5:14b',
    text: 'Let me check.\n✿FUNCTION✿: get_weather\n✿ARGS✿: {"city": "Oslo"}',
    calls: [oslo],
    visible: 'Let me check.\n',
  },
  {
    name: 'Functionary v3.2 >>>name',
    dialect: 'functionary',
    model: 'meetkai/functionary-small-v3.2',
    text: '>>>get_weather\n{"city": "Oslo"}',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Command R7B <|START_ACTION|>',
    dialect: 'command',
    model: 'command-r7b',
    text: '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Oslo"}}]<|END_ACTION|>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'InternLM 2.5 <|action_start|><|plugin|>',
    dialect: 'internlm',
    model: 'internlm2.5:7b',
    text: '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Oslo"}}<|action_end|>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Nemotron <TOOLCALL>',
    dialect: 'nemotron',
    model: 'nvidia/Llama-3.1-Nemotron-Nano-8B-v1',
    text: '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</TOOLCALL>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Qwen 2.5 <tools> (the tag its system prompt lists the tools in)',
    dialect: 'qwen-tools',
    model: 'qwen2.5:14b',
    text: '<tools>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tools>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'LongCat-Flash <longcat_tool_call>',
    dialect: 'longcat',
    model: 'meituan-longcat/LongCat-Flash-Chat',
    text: '<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</longcat_tool_call>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Jamba <tool_calls>',
    dialect: 'jamba',
    model: 'ai21labs/AI21-Jamba-Mini-1.6',
    text: '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</tool_calls>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Apertus <|tools_prefix|>',
    dialect: 'apertus',
    model: 'swiss-ai/Apertus-8B-Instruct-2509',
    text: '<|tools_prefix|>[{"get_weather": {"city": "Oslo"}}]<|tools_suffix|>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Phi-4-mini functools[…]',
    dialect: 'phi4-mini',
    model: 'phi4-mini:3.8b',
    text: 'functools[{"name": "get_weather", "arguments": {"city": "Oslo"}}]',
    calls: [oslo],
    visible: '',
  },
  {
    // llama.cpp's Hermes 2 Pro parser reads a call's JSON between `<tool>`, `<json>` or `<xml>` too.
    name: 'Hermes JSON in a <tool> tag',
    dialect: 'hermes-tags',
    model: 'hermes-2-pro-llama-3-8b',
    text: '<tool>\n  {"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool>',
    calls: [oslo],
    visible: '',
  },
  {
    // Cline's and Roo Code's system prompts: the tool's element, its parameters as children.
    name: 'Cline / Roo Code <tool_name> element',
    dialect: 'tool-tag',
    model: 'cline-agent-model',
    text: '<get_weather>\n<city>Oslo</city>\n</get_weather>',
    calls: [oslo],
    visible: '',
  },
  {
    // Glaive's function-calling data (and the fine-tunes trained on it): the arguments a single-quoted string.
    name: 'Glaive <functioncall>',
    dialect: 'glaive',
    model: 'glaive-function-calling-v1',
    text: `<functioncall> {"name": "get_weather", "arguments": '{"city": "Oslo"}'}`,
    calls: [oslo],
    visible: '',
  },
  {
    name: 'ReAct Action / Action Input',
    dialect: 'react',
    model: 'unknown-react-agent',
    text: 'Action: get_weather\nAction Input: {"city": "Oslo"}',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'bare JSON object (any model)',
    dialect: 'json',
    model: 'some-unknown-model',
    text: '{"name": "get_weather", "arguments": {"city": "Oslo"}}',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'reasoning model thinking in <think> tags left in the text by its server, no call',
    dialect: 'thinking',
    model: 'phi-4-reasoning:14b',
    text: '<think>\nThe user greets me. A short greeting back.\n</think>\n\nHello! How can I help?',
    calls: [],
    visible: 'Hello! How can I help?',
    reasoning: '\nThe user greets me. A short greeting back.\n',
  },
];

/** One fixture per recovery quirk reported for self-hosted models. */
export const quirkFixtures: readonly DialectFixture[] = [
  {
    name: 'NUL and control characters inside a string value are removed',
    dialect: 'json',
    model: 'qwen2.5:7b',
    text: '{"name": "get_weather", "arguments": {"city": "Os\\u0000lo\u0001"}}',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'NUL inside JSON-encoded argument strings is removed',
    dialect: 'json',
    model: 'llama3.1:8b',
    text: '{"name": "get_weather", "arguments": "{\\"city\\": \\"Os\\\\u0000lo\\"}"}',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'a raw line break inside a JSON string is read as one',
    dialect: 'json',
    model: 'qwen2.5:7b',
    text: '{"name": "internal_search", "arguments": {"queries": ["refund\npolicy"]}}',
    calls: [{ name: 'internal_search', arguments: { queries: ['refund\npolicy'] } }],
    visible: '',
  },
  {
    name: 'bare arguments inside a fenced code block',
    dialect: 'json',
    model: 'gemma3:4b',
    text: '```json\n{"city": "Oslo"}\n```',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Mistral [TOOL_CALLS]name{json} repeated for several calls',
    dialect: 'mistral-args',
    model: 'magistral:24b',
    text: '[TOOL_CALLS]get_weather{"city": "Oslo"}[TOOL_CALLS]get_time{"tz": "CET"}',
    calls: [oslo, cet],
    visible: '',
  },
  {
    name: 'Mistral [TOOL_CALLS]name{json} for a tool whose arguments alone would not match',
    dialect: 'mistral-args',
    model: 'devstral:24b',
    text: '[TOOL_CALLS]list_files{}',
    calls: [{ name: 'list_files', arguments: {} }],
    visible: '',
  },
  {
    name: 'Llama 3.x built-in tool call syntax',
    dialect: 'pythonic',
    model: 'llama3.1:70b',
    text: '<|python_tag|>get_weather.call(city="Oslo")<|eom_id|>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Gemma/Gemini tool_code fence with print(...)',
    dialect: 'pythonic',
    model: 'gemma3:12b',
    text: '```tool_code\nprint(get_weather(city="Oslo"))\n```',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Python-literal dict (single quotes, True/None)',
    dialect: 'json',
    model: 'llama3.2:3b',
    text: "{'name': 'get_weather', 'arguments': {'city': 'Oslo', 'metric': True, 'days': None}}",
    calls: [{ name: 'get_weather', arguments: { city: 'Oslo', metric: true, days: null } }],
    visible: '',
  },
  {
    name: 'Gemma 4 call:name{key:value} with special tokens stripped by the server',
    dialect: 'gemma',
    model: 'gemma4:4b',
    text: 'call:get_weather{city:Oslo,days:3}',
    calls: [{ name: 'get_weather', arguments: { city: 'Oslo', days: 3 } }],
    visible: 'call:get_weather{city:Oslo,days:3}',
    prose: '',
  },
  {
    name: 'Qwen3-Coder XML without closing tags (values trimmed)',
    dialect: 'function-tag',
    model: 'qwen3-coder:30b',
    text: '<tool_call>\n<function=get_weather>\n<parameter=city>\n Oslo \n<parameter=days>\n3\n',
    calls: [{ name: 'get_weather', arguments: { city: 'Oslo', days: 3 } }],
    visible: '',
  },
  {
    name: 'self-closing <invoke name="x"/> next to a full one',
    dialect: 'xml-invoke',
    model: 'claude-3-haiku',
    text: '<function_calls><invoke name="list_files"/><invoke name="get_weather"><parameter name="city">Oslo</parameter></invoke></function_calls>',
    calls: [{ name: 'list_files', arguments: {} }, oslo],
    visible: '',
  },
  {
    name: 'whitespace around an XML string parameter is trimmed',
    dialect: 'xml-invoke',
    model: 'minimax-m2',
    text: '<function_calls>\n<invoke name="get_weather">\n<parameter name="city">\n  Oslo  \n</parameter>\n</invoke>\n</function_calls>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'closing tags with a space before >',
    dialect: 'xml-invoke',
    model: 'deepseek-v3',
    text: '<function_calls><invoke name="get_weather"><parameter name="city">Oslo</parameter ></invoke ></function_calls >',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'Qwen3-Coder closing tags with a space before >',
    dialect: 'function-tag',
    model: 'qwen3-coder:30b',
    text: '<tool_call><function=get_weather><parameter=city>Oslo</parameter ></function></tool_call>',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'a draft call inside <think> is not a call when the answer holds the real one',
    dialect: 'json',
    model: 'qwq:32b',
    text: '<think>Maybe {"name": "get_weather", "arguments": {"city": "Bergen"}}? No, Oslo.</think>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}',
    calls: [oslo],
    visible: '',
    reasoning: 'Maybe {"name": "get_weather", "arguments": {"city": "Bergen"}}? No, Oslo.',
  },
  {
    name: 'sibling keys next to a {tool_name: {...}} wrapper',
    dialect: 'json',
    model: 'hermes3:8b',
    text: '{"get_weather": {"city": "Oslo"}, "id": "call_1", "type": "function"}',
    calls: [oslo],
    visible: '',
  },
  {
    name: 'an arguments value that is not an object is not a call',
    dialect: 'json',
    model: 'qwen2.5:7b',
    text: '{"name": "get_weather", "arguments": 42}',
    calls: [],
    visible: '{"name": "get_weather", "arguments": 42}',
  },
  {
    name: 'an <invoke> left open at the end of the stream is recovered',
    dialect: 'xml-invoke',
    model: 'minimax-m2',
    text: 'Checking.\n<invoke name="get_weather">\n<parameter name="city">Oslo</parameter>\n',
    calls: [oslo],
    visible: 'Checking.\n',
  },
  {
    name: 'prose in "arguments" is not a call',
    dialect: 'json',
    model: 'qwen2.5:7b',
    text: '{"name": "get_weather", "arguments": "the city of Oslo"}',
    calls: [],
    visible: '{"name": "get_weather", "arguments": "the city of Oslo"}',
  },
];
