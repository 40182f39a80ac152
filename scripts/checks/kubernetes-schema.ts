// Checks Kubernetes objects against the API's own schemas, as the `kubernetes-models` package ships them (generated
// from the Kubernetes OpenAPI document): its compiled validators for required fields, types and formats, and its
// type declarations, through the TypeScript compiler, for fields the API does not have (the validators accept
// unknown fields; the declarations, checked as object literals, do not).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';

const repoRoot = new URL('../..', import.meta.url).pathname;

/** One object of a manifest file, with where it came from. */
export interface KubernetesDocument {
  /** `file.yaml#2`: the file and the document's position in it (from 1). */
  readonly source: string;
  readonly object: Record<string, unknown>;
}

/** Parses every YAML document of `path`; a syntax error or warning is a problem of its own. */
export function readManifestFile(path: string, name: string): KubernetesDocument[] {
  const documents = parseAllDocuments(readFileSync(path, 'utf8'), { prettyErrors: true });
  if (!Array.isArray(documents)) return [];
  return documents.map((document, index) => {
    const source = `${name}#${index + 1}`;
    const trouble = [...document.errors, ...document.warnings];
    if (trouble.length > 0)
      throw new Error(`${source}: ${trouble.map((problem) => problem.message).join('; ')}`);
    const object = document.toJS() as unknown;
    if (typeof object !== 'object' || object === null || Array.isArray(object)) {
      throw new Error(`${source}: a document must be a mapping`);
    }
    return { source, object: object as Record<string, unknown> };
  });
}

/** Where `kubernetes-models` keeps the model of `apiVersion` + `kind` (`v1` is the core group). */
function modelModule(apiVersion: string, kind: string): string {
  return `kubernetes-models/${apiVersion}/${kind}`;
}

interface ModelClass {
  readonly apiVersion: string;
  readonly kind: string;
  new (data: unknown): { validate(): void };
}

/** The schema problems of each document (empty when it is valid): unknown kinds, schema violations, unknown fields. */
export async function kubernetesSchemaProblems(
  documents: readonly KubernetesDocument[],
): Promise<Map<string, string[]>> {
  const problems = new Map<string, string[]>(documents.map((document) => [document.source, []]));
  const typed: { document: KubernetesDocument; module: string; kind: string }[] = [];
  for (const document of documents) {
    const found = problems.get(document.source) as string[];
    const { apiVersion, kind } = document.object;
    if (
      typeof apiVersion !== 'string' ||
      typeof kind !== 'string' ||
      !/^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/.test(apiVersion) ||
      !/^[A-Za-z]+$/.test(kind)
    ) {
      found.push('apiVersion and kind must be strings');
      continue;
    }
    const module = modelModule(apiVersion, kind);
    let exports: Record<string, unknown>;
    try {
      exports = (await import(module)) as Record<string, unknown>;
    } catch {
      found.push(`unknown kind ${kind} in ${apiVersion}`);
      continue;
    }
    const Model = exports[kind] as ModelClass | undefined;
    if (Model?.apiVersion !== apiVersion || Model.kind !== kind) {
      found.push(`unknown kind ${kind} in ${apiVersion}`);
      continue;
    }
    try {
      new Model(document.object).validate();
    } catch (error) {
      found.push((error as Error).message);
    }
    typed.push({ document, module, kind });
  }
  for (const [source, messages] of declarationProblems(typed)) problems.get(source)?.push(...messages);
  return problems;
}

/**
 * Type-checks each document as an object literal of its model's declared interface: TypeScript refuses a property
 * the interface does not declare (a misspelled field), a missing required one and a wrong type, at any depth.
 */
function declarationProblems(
  typed: readonly { document: KubernetesDocument; module: string; kind: string }[],
): Map<string, string[]> {
  const fileName = join(repoRoot, 'kubernetes-manifests.check.mts');
  let text = '';
  const starts: { start: number; source: string }[] = [];
  typed.forEach(({ document, module, kind }, index) => {
    starts.push({ start: text.length, source: document.source });
    text += `export const document${index}: import(${JSON.stringify(module)}).I${kind} = ${JSON.stringify(document.object, null, 1)};\n`;
  });
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, onError) =>
    name === fileName ? ts.createSourceFile(name, text, language) : getSourceFile(name, language, onError);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === fileName || fileExists(name);
  const program = ts.createProgram([fileName], options, host);
  const file = program.getSourceFile(fileName) as ts.SourceFile;
  const problems = new Map<string, string[]>();
  for (const diagnostic of [
    ...program.getSyntacticDiagnostics(file),
    ...program.getSemanticDiagnostics(file),
  ]) {
    const position = diagnostic.start ?? 0;
    const owner = starts.filter((entry) => entry.start <= position).at(-1);
    const source = owner?.source ?? 'manifests';
    const list = problems.get(source) ?? [];
    list.push(ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '));
    problems.set(source, list);
  }
  return problems;
}
