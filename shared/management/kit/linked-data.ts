import type { ManagementAccess } from './access.ts';
import type { View } from './entity.ts';

/**
 * A link's far end shown under `expand=all` (spec §2.5 `resource_data`, §2.6 `scope_data`, §2.9
 * `client_data`): `load` returns the far ends of ONE page of link views by id; a far end deleted
 * meanwhile, or invisible to the caller (docs/contract.md §4), is `null`.
 */
export interface LinkedRecord<D> {
  /** The link attribute holding the far end's id (`resource_id`). */
  readonly idField: string;
  /** The attribute the far end's view goes to (`resource_data`). */
  readonly as: string;
  readonly load: (deps: D, links: readonly View[], access: ManagementAccess) => Promise<ReadonlyMap<string, View | null>>;
}

export const defineLinkedRecord = <D>(linked: LinkedRecord<D>): LinkedRecord<D> => linked;

/** The distinct far-end ids of these links (one read each, however many links name it). */
export const distinctIds = (links: readonly View[], idField: string): string[] => [...new Set(links.map((l) => String(l[idField])))];

/** Loads `get(id)` once per distinct id, as a map. */
export async function loadByIds<T>(
  ids: readonly string[],
  get: (id: string) => Promise<T | undefined>,
): Promise<Map<string, T | undefined>> {
  const found = await Promise.all(ids.map(get));
  return new Map(ids.map((id, i) => [id, found[i]]));
}

/** Adds each declared far end to every link view of one page. */
export async function addLinkedData<D>(
  deps: D,
  links: View[],
  linked: readonly LinkedRecord<D>[],
  access: ManagementAccess,
): Promise<View[]> {
  const maps = await Promise.all(linked.map((l) => l.load(deps, links, access)));
  return links.map((link) => {
    const out = { ...link };
    linked.forEach((l, i) => {
      out[l.as] = maps[i]!.get(String(link[l.idField])) ?? null;
    });
    return out;
  });
}

/**
 * `expand=all` children of a page of parent views: each parent's child records, viewed and (with
 * the child's own `expand`) given their `*_data`, in ONE expansion for the whole page, so a far
 * end shared by many parents is read once.
 */
export async function addChildren(
  parents: readonly View[],
  children: Readonly<Record<string, (parent: View) => Promise<View[]>>>,
  expandAll: Readonly<Record<string, ((views: View[]) => Promise<View[]>) | undefined>> = {},
): Promise<View[]> {
  const names = Object.keys(children);
  const perParent = await Promise.all(parents.map((p) => Promise.all(names.map((n) => children[n]!(p)))));
  const expanded = await Promise.all(
    names.map(async (n, j) => {
      const all = perParent.flatMap((lists) => lists[j]!);
      const expand = expandAll[n];
      return expand && all.length ? expand(all) : all;
    }),
  );
  const cursor = names.map(() => 0);
  return parents.map((p, i) => {
    const out = { ...p };
    names.forEach((n, j) => {
      const count = perParent[i]![j]!.length;
      out[n] = expanded[j]!.slice(cursor[j], cursor[j]! + count);
      cursor[j] = cursor[j]! + count;
    });
    return out;
  });
}
