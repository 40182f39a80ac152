// The house rules a text check can hold, as functions over one file's source (the test runs them over the tree).
import { codeOnly, lineOf, parenthesised } from './source-text.ts';

/** One place that breaks a rule. */
export interface RuleFinding {
  readonly line: number;
  readonly text: string;
}

const loggingCall =
  /(?<![\w$#])(?:(?<!\.)console\.(?:log|info|warn|error|debug|trace)|[\w$]*[lL]ogger\??\.\w+|(?<!\.)(?:onLog|log)|(?<!\.)process\.std(?:out|err)\.write)\s*\(/g;

// What holds a secret value: header values, keys, tokens, passwords, cookies, credentials.
const secretWord = /headers?|authorization|api_?key|token|secret|password|passwd|cookie|credential|bearer/i;
// Names, counts and kinds of those are fine to log (`headerName`, `tokenCount`, `secretKind`).
const harmlessSuffix =
  /(?:Name|Names|Count|Length|Kind|Kinds|Type|Types|Id|Ids|Source|Sources|Env|Variable)$/;

/**
 * Logging calls (console, a `logger`, `onLog`, stdout/stderr writes) whose arguments use a value that may hold a
 * secret: a header, key, token, password, cookie or credential. Object keys and string text do not count (a
 * message may say "header"), nor names of such things (`headerName`, `headers.keys()`, `apiKeyEnv`).
 */
export function findSecretLogging(source: string): RuleFinding[] {
  const code = codeOnly(source);
  const findings: RuleFinding[] = [];
  for (const match of code.matchAll(loggingCall)) {
    const open = match.index + match[0].length - 1;
    const argumentsText = parenthesised(code, open)
      // `{ header: name }`: the key is a label, not a value.
      .replace(/([\w$]+)\s*:(?!:)/g, (_whole, _key: string) => ' '.repeat(_whole.length));
    for (const identifier of argumentsText.matchAll(/[A-Za-z_$][\w$]*(?:\.keys\(\))?/g)) {
      const word = identifier[0];
      if (word.endsWith('.keys()') || !secretWord.test(word) || harmlessSuffix.test(word)) continue;
      findings.push({ line: lineOf(code, match.index), text: `${match[0]}… uses ${word}` });
      break;
    }
  }
  return findings;
}

/**
 * Uses of the global, unguarded `fetch` as a value or call: `globalThis.fetch`, or a free `fetch` in a file that
 * does not bind the name itself. Types (`typeof globalThis.fetch`) and members (`options.fetch`) do not count.
 */
export function findPlainFetch(source: string): RuleFinding[] {
  const code = codeOnly(source);
  const findings: RuleFinding[] = [];
  const bindsFetch =
    /\b(?:const|let|var|function)\s+fetch\b|\{[^{}]*\bfetch\b[^{}]*\}\s*(?:=(?!=)|\)\s*(?:=>|\{|:))|\(\s*fetch\s*[,):]|\bas\s+fetch\b/.test(
      code,
    );
  for (const match of code.matchAll(/(?<![\w$.#])(globalThis\.)?fetch\b(?!\s*\??\s*:(?!:))/g)) {
    const before = code.slice(Math.max(0, match.index - 20), match.index);
    if (/\btypeof\s+$/.test(before)) continue;
    if (/\bimport\s*(?:type\s*)?\{[^}]*$/.test(code.slice(Math.max(0, match.index - 200), match.index)))
      continue;
    if (match[1] === undefined && bindsFetch) continue;
    findings.push({ line: lineOf(code, match.index), text: match[0] });
  }
  return findings;
}
