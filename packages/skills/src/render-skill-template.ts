import { SkillBundleError } from './skill-bundle-error.ts';

/** Deployment values a built-in skill's `.template` files may use. */
export interface BuiltInTemplateValues {
  /** Shown to the model as the product's name. Default `toolbus`. */
  readonly deploymentName?: string;
  /** Where skills are mounted in the sandbox. Default `/workspace/managed/skills`. */
  readonly skillsDirectory?: string;
  /** Where the sandbox keeps files the user can download. Default `/workspace/outputs`. */
  readonly outputDirectory?: string;
}

/**
 * The fixed set of template variables: `{{ deployment_name }}`, `{{ skills_directory }}`,
 * `{{ skill_directory }}` (this skill's own folder) and `{{ output_directory }}`.
 */
export const skillTemplateVariables = [
  'deployment_name',
  'skills_directory',
  'skill_directory',
  'output_directory',
] as const;

/** Values for {@link skillTemplateVariables} after defaults, for the skill named `skillName`. */
export function resolveTemplateValues(
  values: BuiltInTemplateValues,
  skillName: string,
): Record<string, string> {
  const skillsDirectory = values.skillsDirectory ?? '/workspace/managed/skills';
  return {
    deployment_name: values.deploymentName ?? 'toolbus',
    skills_directory: skillsDirectory,
    skill_directory: `${skillsDirectory}/${skillName}`,
    output_directory: values.outputDirectory ?? '/workspace/outputs',
  };
}

/**
 * Renders a built-in skill's template: each `{{ variable }}` is replaced, in a single pass (a value is never
 * rendered again). An unknown variable, a malformed placeholder or a value holding a newline or braces is an
 * error (`invalid_template`): unresolved markup is never shipped to a model.
 */
export function renderSkillTemplate(options: {
  readonly text: string;
  readonly values: Readonly<Record<string, string>>;
  readonly file: string;
}): string {
  for (const [name, value] of Object.entries(options.values)) {
    if (/[\r\n{}]/.test(value)) {
      throw new SkillBundleError({
        code: 'invalid_template',
        message: `The template value "${name}" must not hold newlines or braces.`,
      });
    }
  }
  const rendered = options.text.replace(/\{\{\s*([A-Za-z0-9_.-]*)\s*\}\}/g, (placeholder, name: string) => {
    const value = Object.hasOwn(options.values, name) ? options.values[name] : undefined;
    if (value === undefined) {
      throw new SkillBundleError({
        code: 'invalid_template',
        message: `${options.file}: unknown template variable ${placeholder}; known: ${Object.keys(options.values).join(', ')}.`,
        entry: options.file,
      });
    }
    return value;
  });
  const leftover = /\{\{|\}\}/.exec(rendered);
  if (leftover !== null) {
    throw new SkillBundleError({
      code: 'invalid_template',
      message: `${options.file}: a malformed placeholder remains near "${rendered.slice(Math.max(0, leftover.index - 20), leftover.index + 20)}".`,
      entry: options.file,
    });
  }
  return rendered;
}
