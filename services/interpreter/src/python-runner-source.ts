/**
 * The Python program that runs a submitted script inside the sandbox. It is written to the service's work root at
 * start and bound read-only at /sandbox/runner.py; the user's code is bound at /sandbox/main.py.
 *
 * It behaves like `python main.py` with two differences: a final bare expression has its value printed (REPL
 * style, so `df.describe()` shows something), and a traceback starts at the user's code, not at this runner.
 */
export const pythonRunnerSource = `import ast
import sys
import traceback

MAIN_PATH = '/sandbox/main.py'


def main():
    sys.path[0] = '/workspace'
    with open(MAIN_PATH, encoding='utf-8') as handle:
        source = handle.read()
    namespace = {'__name__': '__main__', '__file__': MAIN_PATH, '__builtins__': __builtins__}
    try:
        tree = ast.parse(source, MAIN_PATH)
    except SyntaxError as error:
        traceback.print_exception(type(error), error, None)
        return 1
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    try:
        exec(compile(tree, MAIN_PATH, 'exec'), namespace)
        if last is not None:
            value = eval(compile(last, MAIN_PATH, 'eval'), namespace)
            if value is not None:
                print(repr(value))
    except SystemExit:
        raise
    except BaseException as error:
        sys.stdout.flush()
        traceback.print_exception(type(error), error, error.__traceback__.tb_next)
        return 1
    return 0


sys.exit(main())
`;
