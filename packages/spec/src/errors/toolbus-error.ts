const toolbusErrorMarker = Symbol.for('toolbus.error');

/** Options shared by every toolbus error. */
export interface ToolbusErrorOptions {
  /** A stable, machine-readable code: callers branch on this, never on the message. */
  readonly code: string;
  readonly message: string;
  readonly cause?: unknown;
}

/**
 * Base class of every error toolbus throws. `isInstance` checks a `Symbol.for` marker instead of the prototype
 * chain, so it keeps working when two copies of a toolbus package are installed (where `instanceof` fails).
 */
export class ToolbusError extends Error {
  readonly code: string;
  readonly [toolbusErrorMarker] = true;

  constructor(options: ToolbusErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolbusError';
    this.code = options.code;
  }

  /** True for any toolbus error, from any copy of the package. */
  static isInstance(error: unknown): error is ToolbusError {
    return hasErrorMarker(error, toolbusErrorMarker);
  }
}

/**
 * True when `error` is an object carrying `marker`. Subclasses declare their own marker
 * (`Symbol.for('toolbus.error.Name')`) and use this in their static `isInstance`.
 */
export function hasErrorMarker(error: unknown, marker: symbol): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
}
