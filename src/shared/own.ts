/**
 * Objects built from names that came from a file or the wire (JSON keys, header names). `obj[name] = value` with the
 * name `__proto__` sets the object's prototype instead of a property (the key is lost, and a later read finds the
 * value's fields as if they were the object's); these helpers always make an own, enumerable property, as JSON.parse
 * and Object.fromEntries do.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** The own property `key` of an object, never one it inherits (`constructor`, `toString`, `__proto__`…). */
export const getOwn = <T>(source: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(source, key) ? source[key] : undefined;
