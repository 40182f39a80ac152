import type { CitedDocument, Packet } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';

/**
 * The documents a stored turn's answer cited, in the order it first cited them, without their content (a chat
 * read shows where an answer came from, not the text again).
 */
export async function turnCitations(
  storage: Storage,
  at: { readonly chatId: string; readonly turn: number },
): Promise<Omit<CitedDocument, 'content'>[]> {
  const documents = new Map<number, CitedDocument>();
  const cited: number[] = [];
  for (const stored of await storage.chats.listPackets(at)) {
    const { obj } = stored.packet as Packet;
    if (obj.type === 'search-documents')
      for (const document of obj.documents) documents.set(document.citationNumber, document);
    if (obj.type === 'message-start') {
      for (const document of obj.finalDocuments ?? []) documents.set(document.citationNumber, document);
    }
    if (obj.type === 'citation-info' && !cited.includes(obj.citationNumber)) cited.push(obj.citationNumber);
  }
  return cited.flatMap((number) => {
    const document = documents.get(number);
    if (!document) return [];
    const { content: _content, ...shown } = document;
    return [shown];
  });
}
