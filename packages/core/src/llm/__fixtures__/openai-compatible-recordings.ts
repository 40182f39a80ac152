// OpenAI-compatible chat streams as the servers write them, byte for byte in their shapes: OpenAI (usage in a
// last chunk with no choices, refusals, parallel tool calls), vLLM and DeepSeek (reasoning_content), llama.cpp
// (usage and timings with the finish), Gemini's compatibility API (tool calls without an index, thought
// signatures), Mistral (thinking parts in a content array), OpenRouter (comments, CRLF, an error event mid-stream),
// and broken streams. Each is cut into the writes listed (`|` marks a cut), some inside a multi-byte character, so
// a reader sees events split across reads.

const openAiHead = '"object":"chat.completion.chunk","created":1733400000,"model":"gpt-4o-mini-2024-07-18"';
const usage = (prompt: number, completion: number, extra = '') =>
  `"usage":{"prompt_tokens":${prompt},"completion_tokens":${completion},"total_tokens":${prompt + completion}${extra}}`;

const fullUsage =
  '"usage":{"prompt_tokens":21,"completion_tokens":9,"total_tokens":30,"prompt_tokens_details":{"cached_tokens":4,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":2,"rejected_prediction_tokens":1}}';

/** A recording: the response body, cut into writes at each `|` (use `\\|` for a literal bar: none do). */
export const openAiCompatibleRecordings: Record<string, string> = {
  'openai text with usage': [
    `data: {"id":"chatcmpl-A1","${openAiHead.slice(1)},"service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}\n\n|`,
    `data: {"id":"chatcmpl-A1",${openAiHead},"choices":[{"index":0,"delta":{"content":"Caf"},"logprobs":null,"finish_reason":null}],"usage":null}\n\ndata: {"id":"chatcmpl-A1",${openAiHead},"choices":[{"index":0,"delta":{"content":"é au lait "},"logprobs":null,"finish_reason":null}],"usage":null}\n\n|`,
    `data: {"id":"chatcmpl-A1",${openAiHead},"choices":[{"index":0,"delta":{"content":"☕ 🍰"},"logprobs":null,"finish_reason":null}],"usage":null}\n|\ndata: {"id":"chatcmpl-A1",${openAiHead},"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}\n\n`,
    `data: {"id":"chatcmpl-A1",${openAiHead},"choices":[],${fullUsage}}\n\n|data: [DONE]\n\n`,
  ].join(''),
  'openai parallel tool calls in fragments': [
    `data: {"id":"chatcmpl-B2",${openAiHead},"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_wx1","type":"function","function":{"name":"get_weather","arguments":""}}],"refusal":null},"finish_reason":null}]}\n\n|`,
    `data: {"id":"chatcmpl-B2",${openAiHead},"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"ci"}}]},"finish_reason":null}]}\n\n`,
    `data: {"id":"chatcmpl-B2",${openAiHead},"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\\": \\"Zür"}}]},"finish_reason":null}]}\n\n|`,
    `data: {"id":"chatcmpl-B2",${openAiHead},"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ich\\"}"}}]},"finish_reason":null}]}\n\n`,
    `data: {"id":"chatcmpl-B2",${openAiHead},"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_tm2","type":"function","function":{"name":"get_time","arguments":""}}]},"finish_reason":null}]}\n\n|`,
    `data: {"id":"chatcmpl-B2",${openAiHead},"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\\"zone\\":"}}]},"finish_reason":null}]}\n\ndata: {"id":"chatcmpl-B2",${openAiHead},"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":" \\"CET\\"}"}}]},"finish_reason":null}]}\n\n`,
    `data: {"id":"chatcmpl-B2",${openAiHead},"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n|data: {"id":"chatcmpl-B2",${openAiHead},"choices":[],${usage(80, 41)}}\n\ndata: [DONE]\n\n`,
  ].join(''),
  'a tool call whose name comes after its first arguments': [
    `data: {"id":"x3","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_late","function":{"arguments":"{\\"q\\":"}}]},"finish_reason":null}]}\n\n|`,
    `data: {"id":"x3","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"search","arguments":"\\"toolbus\\"}"}}]},"finish_reason":null}]}\n\n|`,
    `data: {"id":"x3","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],${usage(5, 7)}}\n\ndata: [DONE]\n\n`,
  ].join(''),
  'vllm reasoning_content then text': [
    `data: {"id":"chatcmpl-9f1","object":"chat.completion.chunk","created":1733400001,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n|`,
    `data: {"id":"chatcmpl-9f1","object":"chat.completion.chunk","created":1733400001,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"reasoning_content":"The user greets"},"logprobs":null,"finish_reason":null}]}\n\n`,
    `data: {"id":"chatcmpl-9f1","object":"chat.completion.chunk","created":1733400001,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"reasoning_content":" me."},"logprobs":null,"finish_reason":null}]}\n\n|`,
    `data: {"id":"chatcmpl-9f1","object":"chat.completion.chunk","created":1733400001,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]}\n\ndata: {"id":"chatcmpl-9f1","object":"chat.completion.chunk","created":1733400001,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"content":"!"},"logprobs":null,"finish_reason":"stop","stop_reason":null}]}\n\n|`,
    `data: {"id":"chatcmpl-9f1","object":"chat.completion.chunk","created":1733400001,"model":"Qwen/Qwen3-8B","choices":[],${usage(12, 6)}}\n\ndata: [DONE]\n\n`,
  ].join(''),
  'deepseek reasoning with cache usage': [
    `data: {"id":"ds-1","object":"chat.completion.chunk","created":1733400002,"model":"deepseek-reasoner","system_fingerprint":"fp_ds","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":""},"logprobs":null,"finish_reason":null}]}\n\n|`,
    `data: {"id":"ds-1","object":"chat.completion.chunk","created":1733400002,"model":"deepseek-reasoner","system_fingerprint":"fp_ds","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"2+2"},"logprobs":null,"finish_reason":null}]}\n\n`,
    `data: {"id":"ds-1","object":"chat.completion.chunk","created":1733400002,"model":"deepseek-reasoner","system_fingerprint":"fp_ds","choices":[{"index":0,"delta":{"content":"4","reasoning_content":null},"logprobs":null,"finish_reason":null}]}\n\n|`,
    `data: {"id":"ds-1","object":"chat.completion.chunk","created":1733400002,"model":"deepseek-reasoner","system_fingerprint":"fp_ds","choices":[{"index":0,"delta":{"content":"","reasoning_content":null},"logprobs":null,"finish_reason":"length"}],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13,"prompt_tokens_details":{"cached_tokens":8},"completion_tokens_details":{"reasoning_tokens":2},"prompt_cache_hit_tokens":8,"prompt_cache_miss_tokens":2}}\n\ndata: [DONE]\n\n`,
  ].join(''),
  'llama.cpp usage and timings with the finish': [
    `data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1733400003,"id":"chatcmpl-lc","model":"gpt-3.5-turbo","system_fingerprint":"b4000-abc","object":"chat.completion.chunk"}\n\n|`,
    `data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Hi"}}],"created":1733400003,"id":"chatcmpl-lc","model":"gpt-3.5-turbo","system_fingerprint":"b4000-abc","object":"chat.completion.chunk"}\n\n`,
    `data: {"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":1733400003,"id":"chatcmpl-lc","model":"gpt-3.5-turbo","system_fingerprint":"b4000-abc","object":"chat.completion.chunk","usage":{"completion_tokens":2,"prompt_tokens":9,"total_tokens":11},"timings":{"prompt_n":9,"prompt_ms":12.5,"predicted_n":2,"predicted_ms":30.1}}\n\n|data: [DONE]\n\n`,
  ].join(''),
  'gemini tool call without an index, with a thought signature': [
    `data: {"choices":[{"delta":{"role":"assistant","tool_calls":[{"extra_content":{"google":{"thought_signature":"c2lnbmF0dXJl"}},"function":{"arguments":"{\\"city\\":\\"Paris\\"}","name":"get_weather"},"id":"function-call-1","type":"function"}]},"index":0}],"created":1733400004,"id":"g-1","model":"gemini-2.5-flash","object":"chat.completion.chunk"}\n\n|`,
    `data: {"choices":[{"delta":{"role":"assistant"},"finish_reason":"tool_calls","index":0}],"created":1733400004,"id":"g-1","model":"gemini-2.5-flash","object":"chat.completion.chunk","usage":{"completion_tokens":5,"prompt_tokens":40,"total_tokens":75,"completion_tokens_details":{"reasoning_tokens":30}}}\n\ndata: [DONE]\n\n`,
  ].join(''),
  'mistral thinking parts in a content array': [
    `data: {"id":"ms-1","object":"chat.completion.chunk","created":1733400005,"model":"magistral-small-latest","choices":[{"index":0,"delta":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Let me think"}]}]},"finish_reason":null}]}\n\n|`,
    `data: {"id":"ms-1","object":"chat.completion.chunk","created":1733400005,"model":"magistral-small-latest","choices":[{"index":0,"delta":{"content":[{"type":"text","text":"Answer: 7"}]},"finish_reason":null}]}\n\n`,
    `data: {"id":"ms-1","object":"chat.completion.chunk","created":1733400005,"model":"magistral-small-latest","choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],${usage(7, 8)}}\n\ndata: [DONE]\n\n`,
  ].join(''),
  'openai refusal': [
    `data: {"id":"chatcmpl-R",${openAiHead},"choices":[{"index":0,"delta":{"role":"assistant","content":null,"refusal":""},"finish_reason":null}]}\n\n|`,
    `data: {"id":"chatcmpl-R",${openAiHead},"choices":[{"index":0,"delta":{"refusal":"I can't help with that."},"finish_reason":null}]}\n\n`,
    `data: {"id":"chatcmpl-R",${openAiHead},"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`,
  ].join(''),
  'openrouter comments, CRLF and an error event mid-stream': [
    ': OPENROUTER PROCESSING\r\n\r\n|',
    `data: {"id":"gen-1","provider":"Fireworks","model":"qwen/qwen3-coder","object":"chat.completion.chunk","created":1733400006,"choices":[{"index":0,"delta":{"role":"assistant","content":"Part"},"finish_reason":null,"native_finish_reason":null}]}\r\n\r\n|`,
    ': OPENROUTER PROCESSING\r\n\r\n',
    'data: {"error":{"message":"Provider returned error","code":502,"metadata":{"provider_name":"Fireworks"}}}\r\n\r\n|',
    `data: {"id":"gen-1","object":"chat.completion.chunk","created":1733400006,"model":"qwen/qwen3-coder","choices":[{"index":0,"delta":{"content":"ial"},"finish_reason":"error"}]}\r\n\r\ndata: [DONE]\r\n\r\n`,
  ].join(''),
  'malformed JSON and a chunk that breaks the schema': [
    'data: {"id":"bad","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}\n\n|',
    'data: {"id":"bad","choices":[{"index":0,"delta":{"content":"cut\n\n',
    'data: {"id":"bad","choices":"not a list"}\n\n|',
    'event: ping\ndata: {"id":"bad","choices":[{"index":0,"delta":{"content":"two\ndata: lines"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
  ].join(''),
  // Keys that would reach an object's prototype, plainly and in \u escapes, are refused as the provider refuses
  // them; the same words inside a string, or without a backslash anywhere, are plain text.
  'hostile keys: __proto__ and constructor, plain and escaped': [
    'data: {"id":"h","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a constructor, __proto__ and \\\\u005f"},"finish_reason":null}]}\n\n|',
    'data: {"id":"h","choices":[{"index":0,"delta":{"content":"p","__proto__":{"polluted":true}}}]}\n\n',
    'data: {"id":"h","choices":[{"index":0,"delta":{"content":"e","\\u005f_proto__":{"polluted":true}}}]}\n\n|',
    'data: {"id":"h","choices":[{"index":0,"delta":{"content":"c"}}],"constructor":{"prototype":{"polluted":true}}}\n\n',
    'data: {"id":"h","choices":[{"index":0,"delta":{"content":"k"}}],"\\u0063onstructor" :{"prototype":{"polluted":true}}}\n\n|',
    'data: {"id":"h","choices":[{"index":0,"delta":{"content":"end"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
  ].join(''),
  'a stream that ends without a finish reason': [
    'data: {"id":"nf","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"half"},"finish_reason":null}]}\n\n|',
    'data: {"id":"nf","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\\"a\\""}}]},"finish_reason":null}]}\n\n|',
    'data: {"id":"nf","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"unfini',
  ].join(''),
};

/** A recording's writes. */
export function writesOf(recording: string): string[] {
  return recording.split('|');
}
