// The house rules a text check can hold, as functions over one file's source (the test runs them over the tree).
import ts from 'typescript';
import { codeOnly, commentsOf, lineOf, parenthesised } from './source-text.ts';

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

const parseSource = (source: string): ts.SourceFile =>
  ts.createSourceFile('check.tsx', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);

const withoutParentheses = (node: ts.Expression): ts.Expression =>
  ts.isParenthesizedExpression(node) ? withoutParentheses(node.expression) : node;

const isEmptyObject = (node: ts.Expression): boolean => {
  const bare = withoutParentheses(node);
  return ts.isObjectLiteralExpression(bare) && bare.properties.length === 0;
};

/** The value of an object literal with exactly one plain or shorthand property, else undefined. */
function onlyPropertyValue(node: ts.Expression): ts.Expression | undefined {
  const bare = withoutParentheses(node);
  if (!ts.isObjectLiteralExpression(bare) || bare.properties.length !== 1) return undefined;
  const [property] = bare.properties;
  if (property !== undefined && ts.isShorthandPropertyAssignment(property)) return property.name;
  if (property !== undefined && ts.isPropertyAssignment(property)) return property.initializer;
  return undefined;
}

/** `x === undefined` or `undefined !== x` and the like: the tested expression and whether it is for equality. */
function undefinedTest(node: ts.Expression): { tested: ts.Expression; equal: boolean } | undefined {
  const bare = withoutParentheses(node);
  if (!ts.isBinaryExpression(bare)) return undefined;
  const operator = bare.operatorToken.kind;
  const equal = operator === ts.SyntaxKind.EqualsEqualsEqualsToken;
  if (!equal && operator !== ts.SyntaxKind.ExclamationEqualsEqualsToken) return undefined;
  const isUndefined = (side: ts.Expression): boolean => ts.isIdentifier(side) && side.text === 'undefined';
  if (isUndefined(bare.right)) return { tested: bare.left, equal };
  if (isUndefined(bare.left)) return { tested: bare.right, equal };
  return undefined;
}

/**
 * `x` or `options.x` standing alone as a condition (`x ? { key: x } : {}`): the truthy form of the same statement,
 * read as `x !== undefined`. Where an empty string, 0 or false must be left out as well, the idiom says so in the
 * value: `omitUndefined({ key: x || undefined })`.
 */
function truthyTest(node: ts.Expression): { tested: ts.Expression; equal: boolean } | undefined {
  const bare = withoutParentheses(node);
  const plain =
    ts.isIdentifier(bare) || ts.isPropertyAccessExpression(bare) || ts.isElementAccessExpression(bare);
  return plain ? { tested: bare, equal: false } : undefined;
}

// Parsing is the slow part: only a file with an empty object on one side of a conditional is parsed.
const optionalFieldHint = /\?\s*\{\s*\}\s*:|:\s*\{\s*\}\s*[),;]/;

/**
 * Optional fields written as a conditional, `x === undefined ? {} : { key: x }` (spread, `...(…)`, or passed as an
 * argument), its mirror `x !== undefined ? { key: x } : {}` and its truthy form `x ? { key: x } : {}`, where the one field's value is the tested
 * expression or a member of it (`{ userId: user.id }`). The repo's idiom for these is `omitUndefined({ key: x })`
 * from `@toolbus/spec`: one call for any number of fields, and no way to test one name and pass another. A field
 * computed from the value (`{ size: Number(x) }`) is a different statement and is not found.
 */
export function findOptionalFieldConditionals(source: string): RuleFinding[] {
  const findings: RuleFinding[] = [];
  if (!optionalFieldHint.test(source)) return findings;
  const file = parseSource(source);
  const same = (tested: string, value: string): boolean => {
    const bare = (text: string): string => text.replace(/\s+/g, '').replace(/\?\./g, '.');
    return bare(value) === bare(tested) || bare(value).startsWith(`${bare(tested)}.`);
  };
  const visit = (node: ts.Node): void => {
    const test = ts.isConditionalExpression(node)
      ? (undefinedTest(node.condition) ?? truthyTest(node.condition))
      : undefined;
    if (ts.isConditionalExpression(node) && test !== undefined) {
      const [empty, full] = test.equal ? [node.whenTrue, node.whenFalse] : [node.whenFalse, node.whenTrue];
      const value = isEmptyObject(empty) ? onlyPropertyValue(full) : undefined;
      const read = value !== undefined && !ts.isCallExpression(withoutParentheses(value));
      if (value !== undefined && read && same(test.tested.getText(file), value.getText(file))) {
        const start = node.getStart(file);
        findings.push({
          line: file.getLineAndCharacterOfPosition(start).line + 1,
          text: node.getText(file).replace(/\s+/g, ' '),
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return findings;
}

// Documents a reader of the repo does not have: working notes, design and style notes kept beside the repo, and the
// article the project started from (cited by section number, or by its working name).
const outsideDocument =
  /onyx-notes|peers\.md|design\.md|style\.md|style-anchors|\.\.\/shared\/|\/work\/shared|\bseed\s*§|\bseed['’]s\b|\(seed\b|\bthe seed\b(?!\s+(?:of|for|value|command|skills?)\b)/i;
// A section sign is fine after a public standard that has sections: RFC 9110 §7.6.1, ECMA-262 §7.1.
const standardSection = /\b(?:RFC\s*\d+|ECMA-\d+|ISO(?:\/IEC)?\s*\d+|IEEE\s*[\d.]+|POSIX[\w.]*)[\s,]*§/g;
const docsPage = /\bdocs\/[\w./-]*[\w-]\.md\b/g;

// Only a file with one of these words can have such a comment: the rest are not parsed.
const outsideHint = /onyx|seed|§|docs\/|(?:peers|design|style)\.md|style-anchors|shared\//i;

/**
 * Comments that point outside the repo: to notes a reader does not have, to a section number of a document that
 * is not in the repo, or to the system toolbus was modelled on without the `docs/` page that says what it is and
 * where toolbus departs from it. `pageExists` is asked for every `docs/...md` page a comment names, so a pointer
 * to a page that was moved or never written is found too.
 */
export function findOutsideReferences(source: string, pageExists: (page: string) => boolean): RuleFinding[] {
  const findings: RuleFinding[] = [];
  if (!outsideHint.test(source)) return findings;
  for (const comment of commentsOf(source)) {
    const text = comment.text;
    const reasons: string[] = [];
    const outside = outsideDocument.exec(text);
    if (outside !== null) reasons.push(`names a document outside the repo ("${outside[0]}")`);
    if (text.replace(standardSection, '').includes('§'))
      reasons.push('cites a section (§) of a document outside the repo');
    const pages = [...text.matchAll(docsPage)].map((match) => match[0]);
    if (/\bOnyx\b/.test(text) && pages.length === 0)
      reasons.push('names Onyx without a docs/ page that explains it');
    for (const page of pages) {
      if (!pageExists(page)) reasons.push(`points to ${page}, which does not exist`);
    }
    if (reasons.length > 0) findings.push({ line: comment.line, text: reasons.join('; ') });
  }
  return findings;
}
