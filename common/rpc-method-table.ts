// Tables with an entry for some methods of some RPC services (which calls the audit log records,
// what the console lets a role call), looked up by the names a call carries: the service's full
// proto name and the method's.
import type { DescService } from '@bufbuild/protobuf';

export type MethodEntries<Entry> = Readonly<Record<string, Entry>>;
export type MethodTable<Entry> = ReadonlyMap<string, MethodEntries<Entry>>;

/** The table, each service's entries under its full proto name. */
export function methodTable<Entry>(
  services: readonly (readonly [DescService, MethodEntries<Entry>])[],
): MethodTable<Entry> {
  return new Map(services.map(([service, entries]) => [service.typeName, entries]));
}

/** The entry for `service`/`method` (proto names), or undefined: only a listed method has one (never `constructor` or the like). */
export function methodEntry<Entry>(table: MethodTable<Entry>, service: string, method: string): Entry | undefined {
  const entries = table.get(service);
  return entries && Object.hasOwn(entries, method) ? entries[method] : undefined;
}
