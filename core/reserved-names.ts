/**
 * Names a user may not give an agent, a project, a talent, a behavior, a connection, a tool, a feature,
 * a model provider or an invited person:
 * `__proto__`, `prototype` and every member plain JavaScript objects already have (`constructor`,
 * `toString`, `hasOwnProperty`, `valueOf`, …). Such a name used as a key of a plain object reads
 * what the object inherits, not what the user set: `{}["constructor"]` is a function, and
 * `{}["__proto__"] = x` replaces the prototype. Where a name reaches such a lookup it is either
 * refused by the schema (with {@link reservedNameMessage}) or read with {@link ownValue}.
 */
export const reservedNames: ReadonlySet<string> = new Set([
  "__proto__",
  "prototype",
  ...Object.getOwnPropertyNames(Object.prototype),
]);

export const isReservedName = (name: string): boolean => reservedNames.has(name);

/** The rule, for a 400 naming the field: which name, why, what to do. */
export const reservedNameMessage =
  "a reserved name: 'constructor', 'prototype', '__proto__' and the other names every JavaScript object has (toString, valueOf, …) cannot be used; choose another";

/**
 * A plain object's own value for a key a user chose, never one it inherits.
 * @example
 * ownValue({ "*": 1 }, "constructor") // undefined (not Object)
 * ownValue({ constructor: 2 }, "constructor") // 2
 */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined | null, key: string): T | undefined {
  return record != null && Object.hasOwn(record, key) ? record[key] : undefined;
}
