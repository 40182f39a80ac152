// The scripted model of the browser tests' world: what it answers depends on a keyword in the user's message
// (parallel tools, a plot, research lanes, a flood of packets, …), and it writes a chat's title when asked.
import { chunkText, type ScriptedRequest, type ScriptedStep } from '@toolbus/core/testing';
import { TITLE_INSTRUCTION } from '@toolbus/server';

function lastUserText(request: ScriptedRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index -= 1) {
    const message = request.messages[index];
    if (message?.role === 'user') return message.text ?? '';
  }
  return '';
}

function answer(text: string, delayMs: number): ScriptedStep[] {
  return chunkText(text, 8).flatMap((piece) => [
    { type: 'delay', ms: delayMs } as const,
    { type: 'text', text: piece } as const,
  ]);
}

/** The scripted model: what it does depends on a keyword in the user's message. */
export function modelHandler(options: {
  readonly chunkMs: number;
  readonly mailPort: () => number;
  readonly toolResults: string[];
}) {
  return (request: ScriptedRequest): ScriptedStep[] => {
    // The server's title request after a chat's first answer: a short title from the question's first words.
    if (request.messages.some((message) => message.role === 'system' && message.text === TITLE_INSTRUCTION)) {
      const words = /User: (.*)/.exec(lastUserText(request))?.[1]?.split(/\s+/).slice(0, 3) ?? [];
      return [{ type: 'text', text: `"Topic: ${words.join(' ')}".` }];
    }
    const question = lastUserText(request);
    const afterTools = request.messages.at(-1)?.role === 'tool';
    if (question.includes('parallel')) {
      if (!afterTools) {
        return [
          { type: 'text', text: 'Checking two sources at once. ' },
          { type: 'tool-call', id: 'call_search', name: 'search_docs', arguments: { query: 'refund time' } },
          {
            type: 'tool-call',
            id: 'call_open',
            name: 'open_page',
            arguments: { url: 'https://shop.example.com/returns' },
          },
        ];
      }
      return answer(
        'Refunds take **14 days** [1], and returns are accepted within 30 days [3].',
        options.chunkMs,
      );
    }
    if (question.includes('twice')) {
      if (!afterTools) {
        return [
          { type: 'tool-call', id: 'call_s_a', name: 'search_docs', arguments: { query: 'refund time' } },
          { type: 'tool-call', id: 'call_s_b', name: 'search_docs', arguments: { query: 'return window' } },
        ];
      }
      return answer('Both searches agree: refunds take 14 days [1].', options.chunkMs);
    }
    if (question.includes('recovered')) {
      if (!afterTools) {
        return [
          {
            type: 'text',
            text: 'Let me search. <tool_call>{"name": "search_docs", "arguments": {"query": "refunds"}}</tool_call>',
          },
        ];
      }
      return answer('Found it: refunds take 14 days [1].', options.chunkMs);
    }
    if (question.includes('divide')) {
      if (!afterTools) {
        const code = "print('about to divide')\nprint(1 / 0)";
        return [{ type: 'tool-call', id: 'call_div', name: 'run_python', arguments: { code } }];
      }
      return answer('The division failed: you cannot divide by zero.', options.chunkMs);
    }
    if (question.includes('plot')) {
      if (!afterTools) {
        const code = [
          'import matplotlib',
          "matplotlib.use('Agg')",
          'import matplotlib.pyplot as plt',
          'plt.plot([1, 2, 3], [2, 4, 8])',
          "plt.title('Growth')",
          "plt.savefig('growth.png')",
          "print('saved growth.png')",
        ].join('\n');
        return [{ type: 'tool-call', id: 'call_py', name: 'run_python', arguments: { code } }];
      }
      return answer('Here is the plot of the growth.', options.chunkMs);
    }
    if (question.includes('research')) {
      const last = request.messages.at(-1);
      const toolTurns = request.messages.filter((message) => message.role === 'tool').length;
      if (!afterTools) {
        return [
          { type: 'text', text: '' },
          {
            type: 'tool-call',
            id: 'agent_a',
            name: 'research_agent',
            arguments: { task: 'history of refunds' },
          },
          {
            type: 'tool-call',
            id: 'agent_b',
            name: 'research_agent',
            arguments: { task: 'markets for returns' },
          },
          {
            type: 'tool-call',
            id: 'agent_c',
            name: 'research_agent',
            arguments: { task: 'laws on refunds', fail: true },
          },
        ];
      }
      if (toolTurns === 3 && last?.role === 'tool') {
        return [{ type: 'tool-call', id: 'check', name: 'check_citations', arguments: { report: 'draft' } }];
      }
      return answer('# Report\n\nHistory holds [1]. Markets doubled last year [2].', options.chunkMs);
    }
    if (question.includes('mail')) {
      const last = request.messages.at(-1);
      if (!afterTools) {
        const code = [
          'import json, urllib.request, urllib.error',
          `request = urllib.request.Request("https://mail.test:${options.mailPort()}/v1/messages", method="POST",`,
          '    data=json.dumps({"to": "ceo@example.com", "subject": "Q3 numbers"}).encode(),',
          '    headers={"content-type": "application/json"})',
          'try:',
          '    with urllib.request.urlopen(request, timeout=60) as response:',
          '        print("STATUS", response.status)',
          'except urllib.error.HTTPError as error:',
          '    print("STATUS", error.code, error.read().decode())',
        ].join('\n');
        return [{ type: 'tool-call', id: 'call_mail', name: 'run_python', arguments: { code } }];
      }
      const result = last?.toolResults[0]?.content ?? '';
      options.toolResults.push(result);
      const status = /STATUS (\d+)/.exec(result)?.[1] ?? 'nothing';
      return answer(`The mail API answered ${status}.`, options.chunkMs);
    }
    const longRun = /long run of (\d+) steps/.exec(question);
    if (longRun) {
      if (!afterTools)
        return [
          { type: 'tool-call', id: 'long_0', name: 'long_run', arguments: { steps: Number(longRun[1]) } },
        ];
      return answer('The long run is over: every step reported.', options.chunkMs);
    }
    const flood = /flood (\d+)/.exec(question);
    if (flood) {
      if (!afterTools) {
        return [0, 1, 2, 3].map((index) => ({
          type: 'tool-call' as const,
          id: `flood_${index}`,
          name: 'flood',
          arguments: { packets: Number(flood[1]) },
        }));
      }
      return chunkText(`${'The flood is over, every lane reported. '.repeat(40)}`, 4).map((text) => ({
        type: 'text' as const,
        text,
      }));
    }
    if (question.includes('table and code')) {
      return answer(
        [
          'Here is the comparison:',
          '',
          '| Policy | Days |',
          '| --- | ---: |',
          '| Refund | 14 |',
          '| Return | 30 |',
          '',
          '```python',
          'def refund_days(policy):',
          "    return {'refund': 14, 'return': 30}[policy]",
          '```',
        ].join('\n'),
        options.chunkMs,
      );
    }
    if (question.includes('slow')) {
      return answer(`${'This is a long answer that streams slowly. '.repeat(12)}The end.`, 120);
    }
    return answer('Hello! Ask me something.', options.chunkMs);
  };
}
