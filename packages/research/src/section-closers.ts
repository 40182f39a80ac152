import type { Packet } from '@toolbus/spec';

/** Packets that open a section at their placement, and the packet that closes it there. */
export const SECTION_CLOSERS: Readonly<Partial<Record<Packet['obj']['type'], Packet['obj']['type']>>> = {
  'tool-start': 'section-end',
  'research-agent-start': 'section-end',
  'research-plan-start': 'section-end',
  'intermediate-report-start': 'section-end',
  'coding-agent-start': 'section-end',
  'reasoning-start': 'reasoning-end',
};
