// One piece: the depth and cycle checks and the nesting writes read one graph within one commit attempt (docs/rbac.md).
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AppError, conflict, notFound } from '../../errors.ts';
import { type GroupRecord, type IdSet, MAX_GROUP_DEPTH, type NestedGroupLink } from '../../records/group-record.ts';
import { commitPlan, MAX_TRANSACTION_ITEMS } from '../core/commit-plan.ts';
import { entity, toRecord } from '../core/entity.ts';
import { type Condition, exists, notExists } from '../core/expression.ts';
import { queryGsi2, queryPrefix } from '../core/reads/query-all.ts';
import { getItem } from '../core/reads/read-items.ts';
import { withRetries } from '../core/retry.ts';
import { keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { deleteItem, type Path, putItem, updateItem, type Write } from '../core/writes.ts';

/**
 * Nested groups (docs/contract.md §6, §7.6; docs/management-groups.md "Nesting"). A link is
 * `GROUP#{parent}` / `CHILD#{child}` (GSI2 `GROUP#{child}#PARENTS` / parent). Each group keeps its
 * closure: `parent_ids`, `ancestor_ids`, `depth` (root = 1), `height` (leaf = 1).
 *
 * Every change (add or remove, including the sweep of a deleted group) is ONE transaction that
 * also conditions the tenant's graph item `GROUP_GRAPH#{t}` / `GRAPH` on the `version` it read and
 * raises it. So nesting changes of a tenant are serialised: of two changes that would close a
 * cycle between them (A under B, B under A), the second fails its condition, re-reads, sees the
 * cycle and answers 409. A field-level lock (a transaction over both ends only) would not do: the
 * cycle may run through groups neither change touches.
 *
 * The transaction rewrites `ancestor_ids`/`depth` of the child's subtree and `height` of the
 * parent and its ancestors. A change touching more than one transaction holds (100 items) is a 409
 * saying so: a documented limit (a subtree of ~90 groups).
 */

/** Items a nesting change may rewrite besides its links, the parent and the graph item. */
const MAX_AFFECTED = MAX_TRANSACTION_ITEMS - 2;

const tooBig = () =>
  conflict(
    `This nesting change would rewrite more than ${MAX_AFFECTED} groups, more than one transaction holds; split the hierarchy first.`,
  );

/** The tenant's groups as one change sees them: consistent reads, each at most once. */
class GraphView {
  private readonly records = new Map<string, GroupRecord | undefined>();
  private readonly childLists = new Map<string, Set<string>>();
  /** Parent sets changed by the edit being planned. */
  readonly parentOverrides = new Map<string, Set<string>>();

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => Date,
  ) {}

  async node(id: string): Promise<GroupRecord | undefined> {
    if (!this.records.has(id)) {
      const item = await getItem(this.db, this.tableName, keys.group(id), this.now());
      this.records.set(id, item ? toRecord<GroupRecord>(item) : undefined);
    }
    return this.records.get(id);
  }

  /** The link items under `id` (consistent Query of its partition). */
  async links(id: string): Promise<NestedGroupLink[]> {
    return (await queryPrefix(this.db, this.tableName, keys.groupPartition(id), keys.groupChildPrefix)).map((i) =>
      toRecord<NestedGroupLink>(i),
    );
  }

  async children(id: string): Promise<Set<string>> {
    if (!this.childLists.has(id)) this.childLists.set(id, new Set((await this.links(id)).map((l) => l.group_id)));
    return this.childLists.get(id)!;
  }

  async parents(id: string): Promise<Set<string>> {
    const o = this.parentOverrides.get(id);
    if (o) return o;
    return new Set(Object.keys((await this.node(id))?.parent_ids ?? {}));
  }
}

interface Closure {
  ancestors: Set<string>;
  depth: number;
}

/** Descendants of `roots` (themselves included), breadth first, bounded. */
async function subtree(g: GraphView, roots: readonly string[]): Promise<string[]> {
  const seen = new Set<string>(roots);
  const queue = [...roots];
  while (queue.length) {
    for (const c of await g.children(queue.shift()!)) {
      if (seen.has(c)) continue;
      seen.add(c);
      if (seen.size > MAX_AFFECTED) throw tooBig();
      queue.push(c);
    }
  }
  return [...seen];
}

/**
 * The closure fields of every group the edit changes, recomputed from the edited graph:
 * `ancestor_ids`/`depth` of `down` (the children's subtrees), `height` of `up` (the parent and its
 * ancestors). Groups missing (deleted, being swept) count as absent.
 */
async function recompute(g: GraphView, down: readonly string[], up: readonly string[]) {
  const downSet = new Set(down);
  const closures = new Map<string, Closure>();
  const closureOf = async (id: string): Promise<Closure | undefined> => {
    if (!downSet.has(id)) {
      const r = await g.node(id);
      return r && { ancestors: new Set(Object.keys(r.ancestor_ids)), depth: r.depth };
    }
    const known = closures.get(id);
    if (known) return known;
    const ancestors = new Set<string>();
    let depth = 1;
    for (const p of await g.parents(id)) {
      const pc = await closureOf(p);
      if (!pc) continue;
      ancestors.add(p);
      for (const a of pc.ancestors) ancestors.add(a);
      depth = Math.max(depth, pc.depth + 1);
    }
    const c = { ancestors, depth };
    closures.set(id, c);
    return c;
  };
  for (const id of down) await closureOf(id);

  const upSet = new Set(up);
  const heights = new Map<string, number>();
  const heightOf = async (id: string): Promise<number> => {
    if (!upSet.has(id)) return (await g.node(id))?.height ?? 0;
    const known = heights.get(id);
    if (known !== undefined) return known;
    let h = 1;
    for (const c of await g.children(id)) if (await g.node(c)) h = Math.max(h, (await heightOf(c)) + 1);
    heights.set(id, h);
    return h;
  };
  for (const id of up) await heightOf(id);
  return { closures, heights };
}

const sameSet = (a: IdSet, b: Set<string>) => Object.keys(a).length === b.size && [...b].every((k) => a[k]);
const asIdSet = (s: Iterable<string>): IdSet => Object.fromEntries([...s].map((k) => [k, true]));

/** Requires the graph item to be at `version` (0: not written yet) and raises it. */
function graphWrite(tenantId: string, version: number): Write {
  const e = entity('GroupGraph');
  const atVersion: Condition = version === 0 ? notExists : (x) => `${x.name('version')} = ${x.value(version)}`;
  return updateItem(keys.groupGraph(tenantId), {
    set: [
      ['version', version + 1],
      ['type', e.type],
      ['schema_version', e.schema_version],
      ['tenant_id', tenantId],
    ],
    condition: atVersion,
  });
}

export function nestedLinkItem(link: NestedGroupLink) {
  return {
    ...keys.groupChild(link.parent_group_id, link.group_id),
    GSI2PK: keys.groupParents(link.group_id),
    GSI2SK: link.parent_group_id,
    ...entity('NestedGroup'),
    ...link,
  };
}

/** The tenant of a nesting change: the parent's, or (the parent deleted) a child's. A group never moves tenant. */
async function tenantOf(db: DynamoDBDocumentClient, tableName: string, now: () => Date, parentId: string, childIds: readonly string[]) {
  for (const id of [parentId, ...childIds]) {
    const item = await getItem(db, tableName, keys.group(id), now());
    if (item) return String(item.tenant_id);
  }
  return undefined;
}

type Edit = { kind: 'add'; children: readonly string[]; actor: string } | { kind: 'remove'; children: readonly string[] };

/**
 * Plans and commits one edit of the children of `parentId` under the graph version, retried from
 * fresh reads on a lost race. `parentMustExist` false: the sweep of a deleted group.
 */
async function editChildren(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
  parentId: string,
  edit: Edit,
  parentMustExist = true,
): Promise<void> {
  const ids = [...new Set(edit.children)];
  await withRetries(async () => {
    // The graph version is read BEFORE anything of the graph: a change that commits after this read
    // fails our condition, so every record read below is at least as new as the version we hold
    // (read after it, a stale record could pass with a fresh version: the race test caught that).
    const tenantId = await tenantOf(db, tableName, now, parentId, ids);
    if (tenantId === undefined) {
      // docs/contract.md §8: messages name the path parameter or body field at fault, never the ids sent.
      if (parentMustExist) throw notFound('Group not found.');
      // Neither end is left: only link items to delete.
      if (edit.kind === 'remove') await commitPlan(db, tableName, [ids.map((c) => deleteItem(keys.groupChild(parentId, c)))]);
      return;
    }
    const graph = await getItem(db, tableName, keys.groupGraph(tenantId), now());
    const version = typeof graph?.version === 'number' ? graph.version : 0;
    const g = new GraphView(db, tableName, now);
    const parent = await g.node(parentId);
    if (!parent && parentMustExist) throw notFound('Group not found.');
    const existing = await g.children(parentId);
    const at = now().toISOString();
    const linkWrites: Write[] = [];
    const childWrites = new Map<string, { set: [Path, unknown][]; remove: Path[] }>();

    for (const id of ids) {
      const child = await g.node(id);
      if (edit.kind === 'add') {
        if (!child || child.tenant_id !== tenantId) throw notFound('body.groups: a group was not found.');
        if (existing.has(id)) throw conflict('body.groups: a group is already nested in this group.');
        if (id === parentId || parent!.ancestor_ids[id]) throw conflict('body.groups: nesting a group in this group would make a cycle.');
        const link: NestedGroupLink = {
          id: uuidv7(),
          tenant_id: tenantId,
          parent_group_id: parentId,
          group_id: id,
          created_by: edit.actor,
          created_at: at,
          updated_by: edit.actor,
          updated_at: at,
        };
        linkWrites.push(putItem(nestedLinkItem(link), { condition: notExists }));
        existing.add(id);
        g.parentOverrides.set(id, new Set([...(await g.parents(id)), parentId]));
        childWrites.set(id, { set: [[['parent_ids', parentId], true]], remove: [] });
      } else {
        if (!existing.has(id)) throw notFound('body.groups: a group is not nested in this group.');
        linkWrites.push(deleteItem(keys.groupChild(parentId, id), { condition: exists }));
        existing.delete(id);
        const ps = new Set(await g.parents(id));
        ps.delete(parentId);
        g.parentOverrides.set(id, ps);
        if (child) childWrites.set(id, { set: [], remove: [['parent_ids', parentId]] });
      }
    }

    const down = await subtree(
      g,
      ids.filter((id) => childWrites.has(id)),
    );
    const up = parent ? [parentId, ...Object.keys(parent.ancestor_ids)] : [];
    const { closures, heights } = await recompute(g, down, up);
    for (const c of closures.values()) {
      if (c.depth > MAX_GROUP_DEPTH)
        throw conflict(`body.groups: nesting would put a group at level ${c.depth}; groups nest at most ${MAX_GROUP_DEPTH} levels deep.`);
    }

    const writes: Write[] = [...linkWrites, graphWrite(tenantId, version)];
    const touched = new Set<string>([...closures.keys(), ...heights.keys(), ...childWrites.keys()]);
    for (const id of touched) {
      const r = await g.node(id);
      if (!r) continue;
      const set: [Path, unknown][] = [...(childWrites.get(id)?.set ?? [])];
      const remove: Path[] = [...(childWrites.get(id)?.remove ?? [])];
      const c = closures.get(id);
      if (c && !sameSet(r.ancestor_ids, c.ancestors)) set.push(['ancestor_ids', asIdSet(c.ancestors)]);
      if (c && c.depth !== r.depth) set.push(['depth', c.depth]);
      const h = heights.get(id);
      if (h !== undefined && h !== r.height) set.push(['height', h]);
      const isParent = id === parentId;
      const linked = isParent || childWrites.has(id);
      if (!set.length && !remove.length && !linked) continue;
      const delta = edit.kind === 'add' ? linkWrites.length : -linkWrites.length;
      const add: [Path, number][] = linked ? [['links_version', 1]] : [];
      if (isParent) add.push([['aggregations', 'groups'], delta]);
      writes.push(
        updateItem(keys.group(id), {
          ...(set.length ? { set } : {}),
          ...(remove.length ? { remove } : {}),
          ...(add.length ? { add } : {}),
          condition: exists,
        }),
      );
    }
    if (writes.length > MAX_TRANSACTION_ITEMS) throw tooBig();
    await commitPlan(db, tableName, [writes]);
  });
}

/** A link another sweep already removed (the GSI2 read may lag): nothing left to do. */
const ignoreGone = (err: unknown) => {
  if (err instanceof AppError && err.status === 404) return;
  throw err;
};

export interface GroupNesting {
  /** 404 unknown or another tenant's group, 409 already nested, a cycle, deeper than 10, or too big. */
  addChildren(parentId: string, childIds: readonly string[], actor: string): Promise<void>;
  /** 404 when a child is not nested in the parent. */
  removeChildren(parentId: string, childIds: readonly string[]): Promise<void>;
  /** The parent's child links, in child-id order (consistent). 404 if the parent is unknown. */
  listChildren(parentId: string): Promise<NestedGroupLink[]>;
  /** Detaches a deleted group from its parents and children (closures recomputed), one edge at a time. */
  sweepNesting(groupId: string): Promise<void>;
}

export function groupNesting(db: DynamoDBDocumentClient, tableName: string, now: () => Date): GroupNesting {
  const view = () => new GraphView(db, tableName, now);
  return {
    addChildren: (parentId, childIds, actor) => editChildren(db, tableName, now, parentId, { kind: 'add', children: childIds, actor }),
    removeChildren: (parentId, childIds) => editChildren(db, tableName, now, parentId, { kind: 'remove', children: childIds }),
    async listChildren(parentId) {
      const g = view();
      if (!(await g.node(parentId))) throw notFound('Group not found.');
      return g.links(parentId);
    },
    async sweepNesting(groupId) {
      for (const link of await view().links(groupId))
        await editChildren(db, tableName, now, groupId, { kind: 'remove', children: [link.group_id] }, false);
      // Parent links of the group, by its GSI2 partition (eventually consistent: a re-run finishes).
      for (const item of await queryGsi2(db, tableName, keys.groupParents(groupId))) {
        const parentId = String(item.parent_group_id);
        await editChildren(db, tableName, now, parentId, { kind: 'remove', children: [groupId] }, false).catch(ignoreGone);
      }
    },
  };
}
