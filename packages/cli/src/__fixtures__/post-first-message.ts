// A new chat and its first message on a running `toolbus serve` (local auth): how the serve tests start a turn.

const json = { 'content-type': 'application/json' };

/** Creates a chat on `url` and posts `body` (`{ content, tools? }`) as its first message: the chat, its stream. */
export async function postFirstMessage(
  url: string,
  body: Record<string, unknown>,
): Promise<{ readonly chatId: string; readonly response: Response }> {
  const chat = (await (
    await fetch(`${url}/v1/chats`, { method: 'POST', headers: json, body: '{}' })
  ).json()) as { id: string };
  const response = await fetch(`${url}/v1/chats/${chat.id}/messages`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify(body),
  });
  return { chatId: chat.id, response };
}
