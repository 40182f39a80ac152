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
const base64Run = /[A-Za-z0-9+/_-]{256,}={0,2}/;

const overridePatterns = [
  /\b(ignore|disregard|forget|override|bypass)\b[^.\n]{0,60}\b(previous|prior|above|earlier|preceding|all|any|other|system|developer|safety)\b[^.\n]{0,40}\b(instructions?|prompts?|rules|guidelines|messages?|polic(y|ies))\b/i,
  /\b(reveal|print|show|leak|repeat|output|override|replace|change)\b[^.\n]{0,40}\b(system|developer) (prompt|message|instructions)\b/i,
  /\byou are now\b|\bfrom now on,? you\b|\bnew (system )?instructions\s*:/i,
  /<\/?(system|im_start|im_end)\b|\[\/?INST\]|<\|(system|im_start|im_end)\|>/i,
];
const concealmentPatterns = [
  /\b(do not|don't|never|must not)\b[^.\n]{0,40}\b(tell|inform|mention|reveal|show|notify|alert|disclose)\b[^.\n]{0,30}\b(the )?user\b/i,
  /\b(hide|conceal|keep)\b[^.\n]{0,40}\bfrom the user\b/i,
  /\bwithout (telling|informing|asking|notifying|alerting) (the )?user\b/i,
  /\b(secretly|covertly|quietly exfiltrate)\b/i,
];
const credentialPatterns = [
  /(os\.environ|os\.getenv|getenv\s*\(|process\.env|System\.getenv|ENV\[|\$\{?)[^\n]{0,40}\b[A-Z][A-Z0-9_]*_(TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIALS?|AUTH)\b/,
  /\b(AWS_SECRET_ACCESS_KEY|AWS_SESSION_TOKEN|GITHUB_TOKEN|OPENAI_API_KEY|ANTHROPIC_API_KEY)\b/,
  /\/proc\/(self|\d+|\$\$)\/environ|\bprintenv\b|\bdict\(\s*os\.environ\s*\)|JSON\.stringify\(\s*process\.env\s*\)/,
  /~\/\.(aws|ssh|kube|docker|gnupg|netrc|git-credentials|npmrc|pypirc|config\/gcloud)\b|\.aws\/credentials|\bid_(rsa|ed25519|ecdsa|dsa)\b|\/etc\/shadow|\.git-credentials|application_default_credentials\.json/,
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

/**
 * Scans one text file of a bundle for content that tries to steer the model against its user or its instructions,
 * or scripts that read credentials or send data out. Returns findings with file and line; reports each kind at most
 * once per line.
 */
export function scanSkillContent(options: {
  readonly file: string;
  readonly text: string;
}): SkillContentFinding[] {
  const { file, text } = options;
  const findings: SkillContentFinding[] = [];
  const seen = new Set<string>();
  const add = (kind: SkillContentFindingKind, line: number, excerpt: string) => {
    const key = `${kind}:${line}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push({ kind, file, line, excerpt: excerptOf(excerpt) });
  };
  const lineStarts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1))
    lineStarts.push(index + 1);
  const lineOf = (offset: number) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (lineStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
  for (const match of text.matchAll(/<!--([\s\S]*?)(-->|$)/g)) {
    // A comment that only labels something ("TOC", "prettier-ignore") is not a hidden instruction.
    if ((match[1]!.match(/[\p{L}]{2,}/gu) ?? []).length >= 3)
      add('hidden_html_comment', lineOf(match.index), match[1]!);
  }
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    const number = index + 1;
    const visible = index === 0 ? line.replace(/^\ufeff/, '') : line;
    if (invisibleCharacters.test(visible)) add('invisible_character', number, line);
    if (bidiControls.test(line)) add('bidi_control', number, line);
    const base64 = base64Run.exec(line);
    if (base64 !== null && /[A-Z]/.test(base64[0]) && /[a-z]/.test(base64[0]) && /[0-9]/.test(base64[0])) {
      add('base64_blob', number, `${base64[0].slice(0, 60)}… (${base64[0].length} characters)`);
    }
    if (overridePatterns.some((pattern) => pattern.test(line))) add('instruction_override', number, line);
    if (concealmentPatterns.some((pattern) => pattern.test(line))) add('concealment', number, line);
    if (credentialPatterns.some((pattern) => pattern.test(line))) add('credential_access', number, line);
    if (networkCall.test(line)) {
      for (const url of line.matchAll(urlPattern)) {
        if (!isLocalHost(url[1]!)) {
          add('network_exfiltration', number, line);
          break;
        }
      }
    }
  }
  return findings.sort((left, right) => left.line - right.line);
}
