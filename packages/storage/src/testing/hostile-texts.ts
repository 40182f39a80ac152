/**
 * Texts that break a careless JSON array or SQL literal: quotes, backslashes, commas and brackets, NUL, control and
 * line-separator characters, non-ASCII and a lone surrogate (which JSON.stringify writes as an escape). Packets and
 * messages holding them must come back exactly.
 */
export const hostileTexts: readonly string[] = [
  'a "quoted" word, and a comma',
  'back\\slash \\" and \\\\ twice',
  '], [ {"not": "json"} ]',
  'NUL \u0000 tab \t newline \n line separator \u2028',
  'émoji 😀 and a lone surrogate \ud800',
  '',
];
