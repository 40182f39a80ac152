// Function lengths for the "no function over 150 lines" rule (issue 29): every function-like node of a file, with
// the name a reader would search for and how many lines it spans (nested functions count inside their parent too).
import ts from 'typescript';

/** A function of a source file and its length in lines. */
export interface FunctionLength {
  readonly name: string;
  /** 1-based line of its first line. */
  readonly line: number;
  readonly lines: number;
}

/** The name a function goes by: its own, its variable's, its property's, or what it is passed to. */
function nameOf(node: ts.FunctionLikeDeclaration, file: ts.SourceFile): string {
  if (node.name) return node.name.getText(file);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
  ) {
    return parent.name.getText(file);
  }
  if (ts.isCallExpression(parent)) return `${parent.expression.getText(file).slice(0, 60)}(…)`;
  return '(anonymous)';
}

/** Every function-like node with a body in `source`, longest first. */
export function functionLengths(source: string, fileName: string): FunctionLength[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const declaration = node as ts.FunctionLikeDeclaration;
      const start = file.getLineAndCharacterOfPosition(declaration.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(declaration.getEnd()).line;
      found.push({ name: nameOf(declaration, file), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found.sort((a, b) => b.lines - a.lines);
}
