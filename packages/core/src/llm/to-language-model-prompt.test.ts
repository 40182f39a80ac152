import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage } from '@toolbus/spec';
import { MISSING_TOOL_RESULT_TEXT, toLanguageModelPrompt } from './to-language-model-prompt.ts';
import { toLanguageModelToolChoice, toLanguageModelTools } from './to-language-model-tools.ts';

describe('toLanguageModelPrompt', () => {
  it('groups the results of one assistant message right after it, one per call', () => {
    const history: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q', files: [{ id: 'f1', name: 'a.csv', mediaType: 'text/csv' }] },
      {
        role: 'assistant',
        content: '',
        reasoning: 'thinking',
        toolCalls: [
          { id: 'a', name: 'search', arguments: { queries: ['x'] } },
          { id: 'b', name: 'open_url', arguments: { urls: ['u'] } },
          { id: 'a', name: 'search', arguments: { queries: ['duplicate id'] } },
        ],
      },
      { role: 'tool', toolCallId: 'b', toolName: 'open_url', content: 'page' },
      { role: 'tool', toolCallId: 'b', toolName: 'open_url', content: 'second answer to b' },
      { role: 'tool', toolCallId: 'zzz', toolName: 'search', content: 'orphan' },
      { role: 'user', content: 'next' },
      { role: 'assistant', content: 'done' },
    ];
    assert.deepEqual(toLanguageModelPrompt(history), [
      { role: 'system', content: 'sys' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'q' },
          { type: 'text', text: '[attached file — file_id: f1 — a.csv (text/csv)]' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking' },
          { type: 'tool-call', toolCallId: 'a', toolName: 'search', input: { queries: ['x'] } },
          { type: 'tool-call', toolCallId: 'b', toolName: 'open_url', input: { urls: ['u'] } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'b',
            toolName: 'open_url',
            output: { type: 'text', value: 'page' },
          },
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'search',
            output: { type: 'text', value: MISSING_TOOL_RESULT_TEXT },
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'next' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    ]);
  });

  it('drops blank user and assistant messages and, on request, reasoning', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'q' },
      { role: 'user', content: ' \n' },
      { role: 'assistant', content: '  ', reasoning: 'only thoughts' },
      { role: 'assistant', content: 'answer', reasoning: 'why' },
    ];
    assert.deepEqual(toLanguageModelPrompt(history, { includeReasoning: false }), [
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'answer' }] },
    ]);
  });

  it('answers calls left open at the end of history', () => {
    const prompt = toLanguageModelPrompt(
      [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'calling', toolCalls: [{ id: 'c', name: 't', arguments: {} }] },
      ],
      { missingResultText: 'cancelled' },
    );
    assert.deepEqual(prompt.at(-1), {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'text', value: 'cancelled' } },
      ],
    });
  });
});

describe('toLanguageModelTools', () => {
  it('maps definitions and choices', () => {
    const parameters = { type: 'object', properties: { q: { type: 'string' } } };
    assert.deepEqual(toLanguageModelTools([{ name: 'search', description: 'd', parameters }]), [
      { type: 'function', name: 'search', description: 'd', inputSchema: parameters },
    ]);
    assert.deepEqual(toLanguageModelToolChoice('required'), { type: 'required' });
    assert.deepEqual(toLanguageModelToolChoice({ toolName: 'search' }), { type: 'tool', toolName: 'search' });
  });
});
