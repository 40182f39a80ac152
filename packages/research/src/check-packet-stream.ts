import type { Packet, Placement } from '@toolbus/spec';
import { isPlacementWithin, placementKey } from '@toolbus/spec';
import { SECTION_CLOSERS } from './section-closers.ts';

/**
 * Checks a whole turn's packet stream (e.g. replayed from storage) and returns what is wrong, empty when all is
 * well: every nested packet lies inside a section of its top-level tab that is open at the time (after the tab's
 * start packet, before its `section-end`); nothing arrives in a section after it ended (fenced work stays out);
 * every started section and reasoning block ends; top-level turns never go back; `stop` comes last, once.
 */
export function checkPacketStream(packets: readonly Packet[]): string[] {
  const problems: string[] = [];
  const open = new Map<string, { closer: string; placement: Placement }>();
  const tabs = new Map<string, 'open' | 'ended'>();
  const ended: Placement[] = [];
  let lastTopTurn = -1;
  packets.forEach((packet, index) => {
    const { placement, obj } = packet;
    const key = placementKey(placement);
    const at = `packet ${index} (${obj.type} at ${key})`;
    if (index === packets.length - 1 ? obj.type !== 'stop' : obj.type === 'stop') {
      problems.push(`${at}: stop must be the last packet, exactly once`);
    }
    const endedAround = ended.find((outer) => isPlacementWithin(placement, outer));
    if (endedAround) problems.push(`${at}: arrives after its section ${placementKey(endedAround)} ended`);
    const path = placement.path ?? [];
    const tabKey = `${placement.turn}.${placement.tab}`;
    if (path.length === 0) {
      if (placement.turn < lastTopTurn) problems.push(`${at}: top-level turn went back from ${lastTopTurn}`);
      lastTopTurn = Math.max(lastTopTurn, placement.turn);
    } else if (tabs.get(tabKey) !== 'open') {
      problems.push(`${at}: nested under ${tabKey}, which has no open section`);
    }
    const closer = SECTION_CLOSERS[obj.type];
    // An agent's report belongs to the agent's open section: one section-end closes both.
    const insideOpenSection = obj.type === 'intermediate-report-start' && open.has(`${key}|section-end`);
    if (closer && !insideOpenSection) {
      if (open.has(`${key}|${closer}`)) problems.push(`${at}: ${obj.type} while one is already open here`);
      open.set(`${key}|${closer}`, { closer, placement });
      if (path.length === 0 && closer === 'section-end') tabs.set(tabKey, 'open');
    }
    if (obj.type === 'reasoning-end') {
      if (!open.delete(`${key}|reasoning-end`)) problems.push(`${at}: reasoning-end without reasoning-start`);
    }
    if (obj.type === 'section-end') {
      open.delete(`${key}|section-end`);
      for (const [openKey, entry] of open) {
        if (entry.closer === 'reasoning-end' && isPlacementWithin(entry.placement, placement)) {
          problems.push(`${at}: ends while reasoning at ${openKey.split('|')[0]} is still open`);
          open.delete(openKey);
        }
      }
      if (path.length === 0 && tabs.get(tabKey) === 'open') {
        tabs.set(tabKey, 'ended');
        ended.push(placement);
      }
    }
  });
  for (const [openKey, entry] of open) {
    problems.push(`${openKey.split('|')[0]}: started but never got ${entry.closer}`);
  }
  return problems;
}
