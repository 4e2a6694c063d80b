// Writing a member whose name came from outside (a payload, a flow file, a request header).
// Plain assignment of a key named `__proto__` sets the object's prototype instead of adding a
// member: the value vanishes from the output and its members look inherited. JSON allows that
// name, so everywhere such a key is copied it goes through here and stays data.

/** Adds `key` to `target` as an ordinary own, enumerable member, whatever its name. */
export function setOwnMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}
