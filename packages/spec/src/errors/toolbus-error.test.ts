import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ToolCallError } from './tool-call-error.ts';
import { ToolExecutionError } from './tool-execution-error.ts';
import { hasErrorMarker, ToolbusError } from './toolbus-error.ts';

type BaseModule = typeof import('./toolbus-error.ts');
type ToolCallModule = typeof import('./tool-call-error.ts');

/** A second, separately evaluated copy of a module: what two installed copies of a package amount to. */
async function secondCopy<Module>(path: string): Promise<Module> {
  return (await import(`${path}?copy=${Math.random()}`)) as Module;
}

class RefusedError extends ToolbusError<'refused' | 'gone'> {
  static override readonly errorName = 'TestRefusedError';
}

class LimitError extends ToolbusError {
  static override readonly errorName = 'TestLimitError';
}

class HttpCallError extends ToolCallError {
  static override readonly errorName = 'TestHttpCallError';
  readonly status: number;

  constructor(status: number) {
    super({ code: 'test_http', message: `status ${status}`, modelMessage: 'try again' });
    this.status = status;
  }
}

describe('ToolbusError', () => {
  test('takes its name from the declared errorName and keeps code, message and cause', () => {
    const cause = new Error('underneath');
    const error = new RefusedError({ code: 'gone', message: 'it is gone', cause });
    assert.equal(error.name, 'TestRefusedError');
    assert.equal(error.code, 'gone');
    assert.equal(error.message, 'it is gone');
    assert.equal(error.cause, cause);
    assert.equal(Object.hasOwn(new RefusedError({ code: 'refused', message: 'no' }), 'cause'), false);
    assert.equal(new ToolbusError({ code: 'x', message: 'y' }).name, 'ToolbusError');
    assert.match(String(error.stack), /^TestRefusedError: it is gone/);
  });

  test('instanceof still follows the prototype chain', () => {
    const error = new HttpCallError(404);
    assert.ok(error instanceof HttpCallError);
    assert.ok(error instanceof ToolCallError);
    assert.ok(error instanceof ToolbusError);
    assert.ok(error instanceof Error);
    assert.ok(!(error instanceof ToolExecutionError));
  });

  test('isInstance matches its own class and a subclass of it, never a sibling', () => {
    const call = new ToolCallError({ message: 'bad arguments', modelMessage: 'fix them' });
    const execution = new ToolExecutionError({ message: 'crashed' });
    const http = new HttpCallError(500);
    const refused = new RefusedError({ code: 'refused', message: 'no' });

    assert.ok(ToolCallError.isInstance(call));
    assert.ok(ToolExecutionError.isInstance(execution));
    assert.ok(!ToolCallError.isInstance(execution), 'a sibling class does not match');
    assert.ok(!ToolExecutionError.isInstance(call), 'a sibling class does not match');
    assert.ok(!LimitError.isInstance(refused), 'a sibling with no fields of its own does not match either');
    assert.ok(!RefusedError.isInstance(new LimitError({ code: 'refused', message: 'same code' })));

    assert.ok(HttpCallError.isInstance(http));
    assert.ok(ToolCallError.isInstance(http), 'a subclass of a subclass is still its parent');
    assert.ok(!HttpCallError.isInstance(call), 'a parent is not its subclass');
    assert.ok(!ToolExecutionError.isInstance(http));

    for (const error of [call, execution, http, refused]) assert.ok(ToolbusError.isInstance(error));
    for (const other of [new Error('plain'), { code: 'refused' }, 'ToolCallError', null, undefined, 42]) {
      assert.ok(!ToolbusError.isInstance(other));
      assert.ok(!ToolCallError.isInstance(other));
    }
  });

  test('isInstance narrows to the class it is called on', () => {
    const error: unknown = new HttpCallError(418);
    if (!HttpCallError.isInstance(error)) assert.fail('expected an HttpCallError');
    const status: number = error.status;
    assert.equal(status, 418);
    const code: 'refused' | 'gone' | undefined = RefusedError.isInstance(error) ? error.code : undefined;
    assert.equal(code, undefined);
  });

  test('isInstance works across two copies of the package, where instanceof does not', async () => {
    const other = await secondCopy<BaseModule>('./toolbus-error.ts');
    assert.notEqual(other.ToolbusError, ToolbusError, 'the copy is a separate module');
    class OtherRefusedError extends other.ToolbusError<'refused'> {
      static override readonly errorName = 'TestRefusedError';
    }
    class OtherLimitError extends other.ToolbusError {
      static override readonly errorName = 'TestLimitError';
    }
    const fromCopy = new OtherRefusedError({ code: 'refused', message: 'from the other copy' });
    assert.ok(!(fromCopy instanceof RefusedError));
    assert.ok(!(fromCopy instanceof ToolbusError));
    assert.ok(RefusedError.isInstance(fromCopy));
    assert.ok(ToolbusError.isInstance(fromCopy));
    assert.ok(!LimitError.isInstance(fromCopy));
    assert.ok(OtherRefusedError.isInstance(new RefusedError({ code: 'refused', message: 'from this copy' })));
    assert.ok(!OtherLimitError.isInstance(new RefusedError({ code: 'refused', message: 'from this copy' })));
    assert.ok(other.ToolbusError.isInstance(new HttpCallError(400)));

    const otherCalls = await secondCopy<ToolCallModule>('./tool-call-error.ts');
    const otherCall = new otherCalls.ToolCallError({ message: 'bad', modelMessage: 'fix it' });
    assert.ok(!(otherCall instanceof ToolCallError));
    assert.ok(ToolCallError.isInstance(otherCall));
    assert.ok(!ToolExecutionError.isInstance(otherCall));
    assert.ok(!HttpCallError.isInstance(otherCall));
  });

  test('markers are the Symbol.for keys earlier releases set, so older copies are still recognised', () => {
    const olderToolCallError = {
      [Symbol.for('toolbus.error')]: true,
      [Symbol.for('toolbus.error.ToolCallError')]: true,
    };
    assert.ok(ToolbusError.isInstance(olderToolCallError));
    assert.ok(ToolCallError.isInstance(olderToolCallError));
    assert.ok(!ToolExecutionError.isInstance(olderToolCallError));

    const http = new HttpCallError(401);
    assert.ok(hasErrorMarker(http, Symbol.for('toolbus.error')));
    assert.ok(hasErrorMarker(http, Symbol.for('toolbus.error.ToolCallError')));
    assert.ok(hasErrorMarker(http, Symbol.for('toolbus.error.TestHttpCallError')));
    assert.ok(!hasErrorMarker(http, Symbol.for('toolbus.error.ToolExecutionError')));
  });

  test('a subclass that declares no name of its own is its parent to isInstance', () => {
    class UnnamedCallError extends ToolCallError {}
    const error = new UnnamedCallError({ message: 'bad', modelMessage: 'fix it' });
    assert.equal(error.name, 'ToolCallError');
    assert.ok(ToolCallError.isInstance(error));
    assert.ok(UnnamedCallError.isInstance(new ToolCallError({ message: 'bad', modelMessage: 'fix it' })));
    assert.ok(!ToolExecutionError.isInstance(error));
  });
});
