import { isMap, isScalar, parseDocument } from 'yaml';
import type { SkillBundleProblem } from './skill-bundle-error.ts';

/** Longest accepted front-matter block, in characters: metadata is meant to be ~100 tokens. */
export const maxFrontMatterLength = 64 * 1024;
/** Longest skill name. */
export const maxSkillNameLength = 64;
/** Longest description. */
export const maxSkillDescriptionLength = 1024;
const maxCompatibilityLength = 500;
const skillNamePattern = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** The YAML front matter of a `SKILL.md`, after its fields were checked. Extra keys are kept in `extra`. */
export interface SkillFrontMatter {
  readonly name: string;
  readonly description: string;
  readonly license?: string;
  readonly compatibility?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly allowedTools?: string;
  /** Every other key, as plain JSON values. */
  readonly extra: Readonly<Record<string, unknown>>;
}

/** A parsed `SKILL.md`: its front matter and the instructions after it. */
export interface ParsedSkillDocument {
  readonly frontMatter: SkillFrontMatter;
  readonly body: string;
}

/**
 * Parses a `SKILL.md`: front matter between two `---` lines at the very start (CRLF accepted), YAML 1.2 core
 * schema only (no custom or language tags, no aliases, no merge keys, no duplicate keys), then checks the fields
 * of the Agent Skills specification. Returns the parsed document or every problem found.
 */
export function parseSkillFrontMatter(text: string): ParsedSkillDocument | SkillBundleProblem[] {
  const entry = 'SKILL.md';
  const refuse = (message: string): SkillBundleProblem[] => [
    { code: 'invalid_front_matter', message: `SKILL.md: ${message}`, entry },
  ];
  const source = text.startsWith('\ufeff') ? text.slice(1) : text;
  const opening = /^---[ \t]*\r?\n/.exec(source);
  if (opening === null) return refuse('the file must start with a "---" line opening the YAML front matter.');
  const closing = /^---[ \t]*(\r?\n|$)/m;
  const rest = source.slice(opening[0].length);
  const closingMatch = closing.exec(rest);
  if (closingMatch === null) return refuse('the front matter is not closed by a "---" line.');
  const yamlText = rest.slice(0, closingMatch.index);
  if (yamlText.length > maxFrontMatterLength) {
    return refuse(`the front matter is longer than ${maxFrontMatterLength} characters.`);
  }
  const body = rest.slice(closingMatch.index + closingMatch[0].length);
  const document = parseDocument(yamlText, {
    version: '1.2',
    schema: 'core',
    customTags: [],
    merge: false,
    uniqueKeys: true,
    strict: true,
    prettyErrors: false,
  });
  const yamlProblems = [...document.errors, ...document.warnings];
  if (yamlProblems.length > 0) {
    return refuse(
      `the YAML is not valid: ${yamlProblems.map((problem) => problem.message.split('\n')[0]).join('; ')}`,
    );
  }
  if (!isMap(document.contents)) return refuse('the front matter must be a YAML mapping of keys to values.');
  for (const item of document.contents.items) {
    if (!isScalar(item.key) || typeof item.key.value !== 'string')
      return refuse('every key must be a plain string.');
  }
  let values: Record<string, unknown>;
  try {
    values = document.toJS({ maxAliasCount: 0 }) as Record<string, unknown>;
  } catch (error) {
    return refuse(`the YAML could not be read: ${(error as Error).message}`);
  }
  return checkFields(values, body);
}

function checkFields(
  values: Record<string, unknown>,
  body: string,
): ParsedSkillDocument | SkillBundleProblem[] {
  const problems: SkillBundleProblem[] = [];
  const entry = 'SKILL.md';
  const {
    name,
    description,
    license,
    compatibility,
    metadata,
    'allowed-tools': allowedTools,
    ...extra
  } = values;
  if (typeof name !== 'string') {
    problems.push({
      code: 'invalid_skill_name',
      message: 'SKILL.md: "name" is required and must be a string.',
      entry,
    });
  } else if (name.length > maxSkillNameLength || !skillNamePattern.test(name)) {
    problems.push({
      code: 'invalid_skill_name',
      message: `SKILL.md: the name ${JSON.stringify(name.slice(0, 80))} must be 1 to ${maxSkillNameLength} characters of lowercase letters, digits and single hyphens between them.`,
      entry,
    });
  }
  if (typeof description !== 'string' || description.trim() === '') {
    problems.push({
      code: 'invalid_description',
      message: 'SKILL.md: "description" is required and must not be blank.',
      entry,
    });
  } else if (description.length > maxSkillDescriptionLength) {
    problems.push({
      code: 'invalid_description',
      message: `SKILL.md: the description is longer than ${maxSkillDescriptionLength} characters.`,
      entry,
    });
  }
  const optionalString = (key: string, value: unknown) => {
    if (value !== undefined && typeof value !== 'string') {
      problems.push({ code: 'invalid_front_matter', message: `SKILL.md: "${key}" must be a string.`, entry });
    }
  };
  optionalString('license', license);
  optionalString('compatibility', compatibility);
  optionalString('allowed-tools', allowedTools);
  if (
    typeof compatibility === 'string' &&
    (compatibility.trim() === '' || compatibility.length > maxCompatibilityLength)
  ) {
    problems.push({
      code: 'invalid_front_matter',
      message: `SKILL.md: "compatibility" must be non-blank and at most ${maxCompatibilityLength} characters.`,
      entry,
    });
  }
  const metadataIsValid =
    metadata === undefined ||
    (typeof metadata === 'object' &&
      metadata !== null &&
      !Array.isArray(metadata) &&
      Object.values(metadata).every((value) => typeof value === 'string'));
  if (!metadataIsValid) {
    problems.push({
      code: 'invalid_front_matter',
      message: 'SKILL.md: "metadata" must map strings to strings.',
      entry,
    });
  }
  if (problems.length > 0) return problems;
  const frontMatter: SkillFrontMatter = {
    name: name as string,
    description: description as string,
    ...(typeof license === 'string' ? { license } : {}),
    ...(typeof compatibility === 'string' ? { compatibility } : {}),
    ...(metadata === undefined ? {} : { metadata: metadata as Record<string, string> }),
    ...(typeof allowedTools === 'string' ? { allowedTools } : {}),
    extra,
  };
  return { frontMatter, body };
}
