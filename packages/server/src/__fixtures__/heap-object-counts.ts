import { getHeapSnapshot } from 'node:v8';

/**
 * How many live JavaScript objects of each constructor name the heap holds, after full garbage collections (the
 * process needs --expose-gc). Read from a heap snapshot, so it sees every object, whoever holds it.
 */
export async function heapObjectCounts(): Promise<Record<string, number>> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('heapObjectCounts needs node --expose-gc');
  // Twice, a turn apart: finalizers and weak callbacks of the first collection free more in the second.
  for (let pass = 0; pass < 3; pass += 1) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  let json = '';
  for await (const chunk of getHeapSnapshot()) json += chunk;
  const snapshot = JSON.parse(json) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
    nodes: number[];
    strings: string[];
  };
  const { node_fields: fields, node_types: types } = snapshot.snapshot.meta;
  const typeField = fields.indexOf('type');
  const nameField = fields.indexOf('name');
  const objectType = types[0].indexOf('object');
  const counts: Record<string, number> = {};
  for (let index = 0; index < snapshot.nodes.length; index += fields.length) {
    if (snapshot.nodes[index + typeField] !== objectType) continue;
    const name = snapshot.strings[snapshot.nodes[index + nameField] as number] as string;
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}
