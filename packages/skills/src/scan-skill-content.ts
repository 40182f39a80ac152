/** What a content finding is about. */
export type SkillContentFindingKind =
  | 'hidden_html_comment'
  | 'invisible_character'
  | 'bidi_control'
  | 'base64_blob'
  | 'instruction_override'
  | 'concealment'
  | 'credential_access'
  | 'network_exfiltration';

/**
 * Something in a bundle's text an admin should look at before the model reads it. A finding never refuses a bundle
 * by itself; ingestion requires an explicit acceptance when there are any.
 */
export interface SkillContentFinding {
  readonly kind: SkillContentFindingKind;
  /** Normalised path of the file inside the bundle. */
  readonly file: string;
  /** 1-based line number. */
  readonly line: number;
  /** The offending text, shortened, with invisible characters written as `\u{…}` escapes. */
  readonly excerpt: string;
}

const maxExcerptLength = 160;

const invisibleCharacters = /[\u200b-\u200d\u2060-\u2064\ufeff\u180e\u{e0000}-\u{e007f}]/u;
const bidiControls = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;
const minBase64Run = 256;

/**
 * A pattern and the lowercase ASCII substrings one of which any match must contain: one automaton pass over the
 * file tells which patterns can match, so the (common) file that holds no trigger skips the regular expressions.
 */
interface ScanRule {
  readonly kind: SkillContentFindingKind;
  readonly pattern: RegExp;
  readonly triggers: readonly string[];
}

const rules: readonly ScanRule[] = [
  {
    kind: 'instruction_override',
    pattern:
      /\b(ignore|disregard|forget|override|bypass)\b[^.\n]{0,60}\b(previous|prior|above|earlier|preceding|all|any|other|system|developer|safety)\b[^.\n]{0,40}\b(instructions?|prompts?|rules|guidelines|messages?|polic(y|ies))\b/i,
    triggers: ['ignore', 'disregard', 'forget', 'override', 'bypass'],
  },
  {
    kind: 'instruction_override',
    pattern:
      /\b(reveal|print|show|leak|repeat|output|override|replace|change)\b[^.\n]{0,40}\b(system|developer) (prompt|message|instructions)\b/i,
    triggers: ['system ', 'developer '],
  },
  {
    kind: 'instruction_override',
    pattern: /\byou are now\b|\bfrom now on,? you\b|\bnew (system )?instructions\s*:/i,
    triggers: ['you are now', 'from now on', 'instructions'],
  },
  {
    kind: 'instruction_override',
    pattern: /<\/?(system|im_start|im_end)\b|\[\/?INST\]|<\|(system|im_start|im_end)\|>/i,
    triggers: ['system', 'im_start', 'im_end', 'inst]'],
  },
  {
    kind: 'concealment',
    pattern:
      /\b(do not|don't|never|must not)\b[^.\n]{0,40}\b(tell|inform|mention|reveal|show|notify|alert|disclose)\b[^.\n]{0,30}\b(the )?user\b/i,
    triggers: ['user'],
  },
  {
    kind: 'concealment',
    pattern: /\b(hide|conceal|keep)\b[^.\n]{0,40}\bfrom the user\b/i,
    triggers: ['from the user'],
  },
  {
    kind: 'concealment',
    pattern: /\bwithout (telling|informing|asking|notifying|alerting) (the )?user\b/i,
    triggers: ['without '],
  },
  {
    kind: 'concealment',
    pattern: /\b(secretly|covertly|quietly exfiltrate)\b/i,
    triggers: ['secretly', 'covertly', 'quietly'],
  },
  {
    kind: 'credential_access',
    pattern:
      /(os\.environ|os\.getenv|getenv\s*\(|process\.env|System\.getenv|ENV\[|\$\{?)[^\n]{0,40}\b[A-Z][A-Z0-9_]*_(TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIALS?|AUTH)\b/,
    triggers: ['environ', 'getenv', 'process.env', 'env[', '$'],
  },
  {
    kind: 'credential_access',
    pattern: /\b(AWS_SECRET_ACCESS_KEY|AWS_SESSION_TOKEN|GITHUB_TOKEN|OPENAI_API_KEY|ANTHROPIC_API_KEY)\b/,
    triggers: [
      'aws_secret_access_key',
      'aws_session_token',
      'github_token',
      'openai_api_key',
      'anthropic_api_key',
    ],
  },
  {
    kind: 'credential_access',
    pattern:
      /\/proc\/(self|\d+|\$\$)\/environ|\bprintenv\b|\bdict\(\s*os\.environ\s*\)|JSON\.stringify\(\s*process\.env\s*\)/,
    triggers: ['/environ', 'printenv', 'os.environ', 'process.env'],
  },
  {
    kind: 'credential_access',
    pattern:
      /~\/\.(aws|ssh|kube|docker|gnupg|netrc|git-credentials|npmrc|pypirc|config\/gcloud)\b|\.aws\/credentials|\bid_(rsa|ed25519|ecdsa|dsa)\b|\/etc\/shadow|\.git-credentials|application_default_credentials\.json/,
    triggers: [
      '~/.',
      '.aws/',
      'id_rsa',
      'id_ed25519',
      'id_ecdsa',
      'id_dsa',
      '/etc/shadow',
      '.git-credentials',
      'application_default',
    ],
  },
];
const networkCall =
  /\b(curl|wget|ncat|nc|scp|rsync|Invoke-WebRequest|Invoke-RestMethod|iwr)\b|requests\.(post|put|patch|get|request)|urllib\.request|urlopen|http\.client|httpx\.|aiohttp|\bfetch\s*\(|axios|XMLHttpRequest|socket\.connect|smtplib/;
const urlPattern = /\b(?:https?|ftp|wss?):\/\/(\[[^\]]+\]|[^\s/:'"`<>)]+)/gi;

/** True when the host names this machine: the only hosts a script may talk to without a finding. */
function isLocalHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    bare === 'localhost' ||
    bare.endsWith('.localhost') ||
    bare === '::1' ||
    /^127\./.test(bare) ||
    bare === '0.0.0.0'
  );
}

function excerptOf(text: string): string {
  const trimmed = text.trim();
  const short = trimmed.length > maxExcerptLength ? `${trimmed.slice(0, maxExcerptLength)}…` : trimmed;
  return short.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u{e0000}-\u{e007f}]/gu,
    (character) => `\\u{${character.codePointAt(0)!.toString(16)}}`,
  );
}

/** Membership of the base64 / base64url alphabet, by byte. */
const base64Alphabet = new Uint8Array(256);
for (const character of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') {
  base64Alphabet[character.charCodeAt(0)] = 1;
}

/**
 * An Aho-Corasick automaton over every rule's triggers (ASCII, matched case-insensitively): one pass over a file's
 * bytes tells which rules can match at all. `transitions[state * 256 + byte]` is the next state; `ruleMasks[state]`
 * has bit `r` set when a trigger of rule `r` ends there.
 */
const triggerAutomaton = (() => {
  if (rules.length > 31) throw new Error('scan rules are tracked in a 31-bit mask');
  const goto: Map<number, number>[] = [new Map()];
  const masks: number[] = [0];
  for (const [ruleIndex, rule] of rules.entries()) {
    for (const trigger of rule.triggers) {
      let state = 0;
      for (const byte of Buffer.from(trigger, 'latin1')) {
        let next = goto[state]!.get(byte);
        if (next === undefined) {
          next = goto.length;
          goto.push(new Map());
          masks.push(0);
          goto[state]!.set(byte, next);
        }
        state = next;
      }
      masks[state]! |= 1 << ruleIndex;
    }
  }
  const transitions = new Int32Array(goto.length * 256);
  const failure = new Int32Array(goto.length);
  const queue: number[] = [];
  for (let byte = 0; byte < 256; byte += 1) {
    const next = goto[0]!.get(byte) ?? 0;
    transitions[byte] = next;
    if (next !== 0) queue.push(next);
  }
  for (let head = 0; head < queue.length; head += 1) {
    const state = queue[head]!;
    masks[state]! |= masks[failure[state]!]!;
    for (let byte = 0; byte < 256; byte += 1) {
      const next = goto[state]!.get(byte);
      if (next === undefined) {
        transitions[state * 256 + byte] = transitions[failure[state]! * 256 + byte]!;
      } else {
        failure[next] = transitions[failure[state]! * 256 + byte]!;
        transitions[state * 256 + byte] = next;
        queue.push(next);
      }
    }
  }
  return { transitions, ruleMasks: Int32Array.from(masks) };
})();

/**
 * One pass over the UTF-8 bytes: which rules' triggers occur (ASCII letters folded to lowercase), and the long
 * base64 runs with their line.
 */
function prescan(bytes: Uint8Array): {
  readonly ruleMask: number;
  readonly runs: { readonly line: number; readonly text: string }[];
} {
  const { transitions, ruleMasks } = triggerAutomaton;
  const runs: { line: number; text: string }[] = [];
  let ruleMask = 0;
  let state = 0;
  let line = 1;
  let start = -1;
  for (let index = 0; index <= bytes.length; index += 1) {
    const byte = index < bytes.length ? bytes[index]! : 0;
    if (base64Alphabet[byte] === 1) {
      if (start === -1) start = index;
    } else if (start !== -1) {
      if (index - start >= minBase64Run)
        runs.push({ line, text: Buffer.from(bytes.subarray(start, index)).toString('latin1') });
      start = -1;
    }
    state = transitions[state * 256 + (byte >= 65 && byte <= 90 ? byte | 0x20 : byte)]!;
    ruleMask |= ruleMasks[state]!;
    if (byte === 10) line += 1;
  }
  return { ruleMask, runs };
}

/** Runs `pattern` over the whole text (one pass per pattern, far faster than per line) and yields match offsets. */
function* offsetsOf(
  text: string,
  pattern: RegExp,
): Generator<{ readonly index: number; readonly text: string }> {
  const global = new RegExp(
    pattern.source,
    pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`,
  );
  for (const match of text.matchAll(global)) yield { index: match.index, text: match[0] };
}

/**
 * Scans one text file of a bundle for content that tries to steer the model against its user or its instructions,
 * or scripts that read credentials or send data out. Returns findings with file and line, sorted by line; reports
 * each kind at most once per line.
 */
export function scanSkillContent(options: {
  readonly file: string;
  readonly text: string;
  /** The text's UTF-8 bytes, when the caller has them (saves encoding the text again). */
  readonly bytes?: Uint8Array;
}): SkillContentFinding[] {
  const { file, text } = options;
  const findings: SkillContentFinding[] = [];
  const seen = new Set<string>();
  // Line starts are only needed once something is found: most files have no finding at all.
  let computedLineStarts: number[] | undefined;
  const starts = () => {
    if (computedLineStarts !== undefined) return computedLineStarts;
    computedLineStarts = [0];
    for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
      computedLineStarts.push(index + 1);
    }
    return computedLineStarts;
  };
  const lineIndexOf = (offset: number) => {
    const lineStarts = starts();
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (lineStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  const lineText = (lineIndex: number) =>
    text.slice(starts()[lineIndex]!, (starts()[lineIndex + 1] ?? text.length + 1) - 1);
  const add = (kind: SkillContentFindingKind, offset: number, excerpt?: string) =>
    addAtLine(kind, lineIndexOf(offset), excerpt);
  const addAtLine = (kind: SkillContentFindingKind, lineIndex: number, excerpt?: string) => {
    const key = `${kind}:${lineIndex}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push({ kind, file, line: lineIndex + 1, excerpt: excerptOf(excerpt ?? lineText(lineIndex)) });
  };
  for (const match of text.matchAll(/<!--([\s\S]*?)(-->|$)/g)) {
    // A comment that only labels something ("TOC", "prettier-ignore") is not a hidden instruction.
    if ((match[1]!.match(/[\p{L}]{2,}/gu) ?? []).length >= 3)
      add('hidden_html_comment', match.index, match[1]!);
  }
  for (const match of offsetsOf(text, invisibleCharacters)) {
    if (!(match.index === 0 && match.text === '\ufeff')) add('invisible_character', match.index);
  }
  for (const match of offsetsOf(text, bidiControls)) add('bidi_control', match.index);
  const { ruleMask, runs } = prescan(options.bytes ?? Buffer.from(text, 'utf8'));
  for (const run of runs) {
    if (/[A-Z]/.test(run.text) && /[a-z]/.test(run.text) && /[0-9]/.test(run.text)) {
      addAtLine('base64_blob', run.line - 1, `${run.text.slice(0, 60)}… (${run.text.length} characters)`);
    }
  }
  for (const [ruleIndex, rule] of rules.entries()) {
    if ((ruleMask & (1 << ruleIndex)) === 0) continue;
    for (const match of offsetsOf(text, rule.pattern)) add(rule.kind, match.index);
  }
  // A call only counts with a URL on its line, so a file without "://" cannot hold one.
  for (const match of text.includes('://') ? offsetsOf(text, networkCall) : []) {
    const line = lineText(lineIndexOf(match.index));
    for (const url of line.matchAll(urlPattern)) {
      if (!isLocalHost(url[1]!)) {
        add('network_exfiltration', match.index);
        break;
      }
    }
  }
  return findings.sort((left, right) => left.line - right.line);
}
