/**
 * Every {@link ActionPolicy}, the order the CLI and the docs say them in (a parser checks words against it).
 */
export const ACTION_POLICIES = ['ALWAYS', 'ASK', 'DENY'] as const;

/**
 * What happens to an action a sandbox's request performs (a connected app's action, an MCP tool call): `ALWAYS`
 * forwards it with credentials, `ASK` waits for the user's approval, `DENY` refuses it. The egress proxy decides
 * with it (`EgressPolicy`); storage keeps it on connected apps' actions.
 */
export type ActionPolicy = (typeof ACTION_POLICIES)[number];
