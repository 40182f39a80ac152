// A stored packet's JSON is written once by storage and sent again by every stream that follows the turn: the
// text is computed once per packet object and kept beside it (packets are never changed after they are emitted).
const texts = new WeakMap<object, string>();

/**
 * `JSON.stringify(packet)`, computed once per packet object: storage and every stream of the turn share the text.
 * Values that are not objects are stringified each time (they cannot be keys, and cost nothing to write).
 */
export function packetJson(packet: unknown): string {
  if (typeof packet !== 'object' || packet === null) return JSON.stringify(packet) ?? 'null';
  let text = texts.get(packet);
  if (text === undefined) {
    text = JSON.stringify(packet) ?? 'null';
    texts.set(packet, text);
  }
  return text;
}
