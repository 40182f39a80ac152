// The chats a server bench's turns run in, created over the API before anything is measured.

/** Creates `count` chats on the server at `url`; their ids, in order. */
export async function createChats(url: string, count: number): Promise<string[]> {
  const chats: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const response = await fetch(`${url}/v1/chats`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    chats.push(((await response.json()) as { id: string }).id);
  }
  return chats;
}
