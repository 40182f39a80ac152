/**
 * `T` with every field that may hold `undefined` turned into an optional field that never does: the shape a
 * strict optional target (`exactOptionalPropertyTypes`) accepts, such as an AI SDK call's settings, an MCP SDK
 * option bag, `RequestInit` or a Node API's options.
 */
export type DefinedFields<T> = {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K];
} & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/**
 * A shallow copy of `value` without the fields whose value is `undefined`, so `f(omitUndefined({ a, b }))` passes
 * only the settings that are set, to a third-party type we cannot widen to `?: T | undefined`. An explicit
 * `undefined` there would otherwise reach the callee as a key that is present (and, where the callee merges it
 * over its defaults, wipe the default out). Copies own enumerable string keys only; `null` is kept.
 */
export function omitUndefined<T extends object>(value: T): DefinedFields<T> {
  const defined: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field !== undefined) defined[key] = field;
  }
  return defined as DefinedFields<T>;
}
