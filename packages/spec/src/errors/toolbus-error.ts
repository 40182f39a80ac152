const toolbusErrorMarker = Symbol.for('toolbus.error');

/** Options shared by every toolbus error. */
export interface ToolbusErrorOptions<Code extends string = string> {
  /** A stable, machine-readable code: callers branch on this, never on the message. */
  readonly code: Code;
  readonly message: string;
  readonly cause?: unknown;
}

/** A class of toolbus error, as `isInstance` sees it: its constructor and its declared name. */
interface ToolbusErrorClass<Instance> {
  readonly errorName: string;
  readonly prototype: Instance;
}

/**
 * Base class of every error toolbus throws. A subclass declares its name once, `static override readonly errorName =
 * 'StorageError'`: the base sets `name` from it and marks the error with `Symbol.for('toolbus.error.StorageError')`
 * (and with the marker of every named class above it), so `StorageError.isInstance(error)` checks that marker
 * instead of the prototype chain. It keeps working when two copies of a toolbus package are installed (where
 * `instanceof` fails), and it never matches a sibling class. A subclass that declares no name of its own shares its
 * parent's name and marker. A class meant to be extended types it `errorName: string`, so that its subclasses may
 * name themselves. `Code` narrows `code` to a subclass's own union.
 */
export class ToolbusError<Code extends string = string> extends Error {
  /** The name every instance carries, and the key of its marker. Declared by every subclass. */
  static readonly errorName: string = 'ToolbusError';

  readonly code: Code;

  constructor(options: ToolbusErrorOptions<Code>) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.errorName;
    this.code = options.code;
    // Mark the error for its own class and every named class above it, so `ToolCallError.isInstance` still holds
    // for an `OpenApiHttpError`.
    for (let type: unknown = new.target; type !== Error; type = Object.getPrototypeOf(type)) {
      if (Object.hasOwn(type as object, 'errorName')) {
        (this as Record<symbol, unknown>)[errorMarker((type as ToolbusErrorClass<unknown>).errorName)] = true;
      }
    }
  }

  /**
   * True for an error of this class (or a subclass of it), from any copy of the package. Call it on the class:
   * `StorageError.isInstance(error)`.
   */
  static isInstance<Instance>(this: ToolbusErrorClass<Instance>, error: unknown): error is Instance {
    // biome-ignore lint/complexity/noThisInStatic: the class it is called on (not the base) names the marker.
    return hasErrorMarker(error, errorMarker(this.errorName));
  }
}

/** The marker of a declared error name; the base keeps the bare `toolbus.error` it has always carried. */
function errorMarker(errorName: string): symbol {
  return errorName === ToolbusError.errorName ? toolbusErrorMarker : Symbol.for(`toolbus.error.${errorName}`);
}

/**
 * True when `error` is an object carrying `marker`. Errors declared with `errorName` need not call it (their
 * inherited `isInstance` does); it stays for code that checks a marker of its own.
 */
export function hasErrorMarker(error: unknown, marker: symbol): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
}
