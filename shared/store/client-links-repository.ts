import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conflict, notFound } from '../errors.ts';
import type { ClientResourceLink } from '../records/client-link-records.ts';
import type { ClientRecord } from '../records/client-record.ts';
import type { ResourceRecord } from '../records/resource-record.ts';
import { readClientPartition, type ClientPartition } from './client-partition.ts';
import { commitPlan, type Guard } from './commit-plan.ts';
import { toRecord } from './entity.ts';
import { keys } from './keys.ts';
import { grantsCopyIsCurrent, linkUnit, MAX_RESOURCES_PER_CLIENT, unlinkUnits } from './link-writes.ts';
import { queryGsi2, queryPrefix } from './query-all.ts';
import { getItem, getItems } from './read-items.ts';
import { withRetries } from './retry.ts';
import { uuidv7 } from './uuidv7.ts';
import { keyString, type Write } from './writes.ts';

/**
 * Client ↔ resource links (spec §2.5, §2.9; API.md §6). A link is `CLIENT#{c}` / `RESOURCE#{r}`
 * (GSI2 `RESOURCE#{r}#CLIENTS` / c). Every change is all-or-nothing: each id is validated on a
 * consistent read first (unknown → 404, existing link when adding → 409, missing link when
 * removing → 404, nothing written), then the links, `client.aggregations.resources` and each
 * `resource.aggregations.clients` change in one transaction (in ordered, count-exact chunks
 * above 100 items). Concurrent changes of the same client lose on its `links_version` and are
 * re-validated, so 20 parallel authorizations of one resource give one success and 409s.
 */
export interface ClientLinksRepository {
  /** 404: client unknown, or a resource unknown or in another tenant (unless the client is global). 409: already linked. */
  authorize(clientId: string, resourceIds: readonly string[], actor: string): Promise<void>;
  /** Also removes the client's permissions on those resources. 404: client unknown or a link missing. */
  revoke(clientId: string, resourceIds: readonly string[]): Promise<void>;
  /** Mirror of authorize from the resource side (`POST /resources/{id}/clients`). */
  authorizeClients(resourceId: string, clientIds: readonly string[], actor: string): Promise<void>;
  /** Mirror of revoke from the resource side. */
  revokeClients(resourceId: string, clientIds: readonly string[]): Promise<void>;
  /** The client's links in resource-id order (one consistent Query). 404 if the client is unknown. */
  listForClient(clientId: string): Promise<ClientResourceLink[]>;
  /** The resource's links in client-id order (GSI2, eventually consistent). 404 if the resource is unknown. */
  listForResource(resourceId: string): Promise<ClientResourceLink[]>;
}

const unique = (ids: readonly string[]) => [...new Set(ids)];

const tooManyResources = (clientId: string) =>
  conflict(`Client ${clientId} would have more than ${MAX_RESOURCES_PER_CLIENT} authorized resources; revoke one first.`);

export function clientLinksRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): ClientLinksRepository {
  const mustReadClient = async (clientId: string) => {
    const p = await readClientPartition(db, tableName, clientId);
    if (!p) throw notFound(`Client ${clientId} not found.`);
    return p;
  };
  const mustGetResource = async (resourceId: string) => {
    const item = await getItem(db, tableName, keys.resource(resourceId), now());
    if (!item) throw notFound(`Resource ${resourceId} not found.`);
    return toRecord<ResourceRecord>(item);
  };
  /**
   * API.md §4: a non-global client only sees its own tenant's resources, and the system resource
   * (the management API), which every tenant shares: a tenant's own admin client is authorized on
   * it, and the tenant rules of the management API keep it inside its tenant.
   */
  const visible = (client: ClientRecord, resource: ResourceRecord | undefined) =>
    resource !== undefined && (client.is_global || resource.tenant_id === client.tenant_id || resource.resource_metadata.is_system);
  const newLink = (client: ClientRecord, resourceId: string, actor: string): ClientResourceLink => {
    const at = now().toISOString();
    return { id: uuidv7(), tenant_id: client.tenant_id, client_id: client.id, resource_id: resourceId, created_by: actor, created_at: at, updated_by: actor, updated_at: at };
  };
  const clientGuard = (p: ClientPartition): Guard => ({ key: keys.client(p.client.id), expected: p.client.links_version });

  return {
    async authorize(clientId, resourceIds, actor) {
      const ids = unique(resourceIds);
      // Links this call already committed (a batch too big for one transaction): not conflicts on a retry.
      const mine = new Set<string>();
      await withRetries(async () => {
        const p = await mustReadClient(clientId);
        const found = await getItems(db, tableName, ids.map(keys.resource), now());
        for (const id of ids) {
          const item = found.get(keyString(keys.resource(id)));
          if (!visible(p.client, item && toRecord<ResourceRecord>(item))) throw notFound(`Resource ${id} not found.`);
        }
        const todo = ids.filter((id) => {
          const existing = p.links.get(id);
          if (existing && !mine.has(existing.id)) throw conflict(`Resource ${id} is already authorized to client ${clientId}.`);
          return !existing;
        });
        if (p.client.aggregations.resources + todo.length > MAX_RESOURCES_PER_CLIENT) throw tooManyResources(clientId);
        const links = todo.map((id) => newLink(p.client, id, actor));
        await commitPlan(db, tableName, links.map((l) => linkUnit(l, grantsCopyIsCurrent(p.client))), {
          guards: [clientGuard(p)],
          onCommitted: (idx) => idx.forEach((i) => mine.add(links[i]!.id)),
        });
      });
    },

    async revoke(clientId, resourceIds) {
      const ids = unique(resourceIds);
      const done = new Set<string>();
      await withRetries(async () => {
        const p = await mustReadClient(clientId);
        const todo = ids.filter((id) => {
          if (!p.links.has(id) && !done.has(id)) throw notFound(`Resource ${id} is not authorized to client ${clientId}.`);
          return p.links.has(id);
        });
        const units: Write[][] = [];
        const lastUnitOf = new Map<number, string>();
        for (const id of todo) {
          units.push(...unlinkUnits(clientId, id, p.permissions.filter((x) => x.resource_id === id), grantsCopyIsCurrent(p.client)));
          lastUnitOf.set(units.length - 1, id);
        }
        await commitPlan(db, tableName, units, {
          guards: [clientGuard(p)],
          onCommitted: (idx) => idx.forEach((i) => lastUnitOf.has(i) && done.add(lastUnitOf.get(i)!)),
        });
      });
    },

    async authorizeClients(resourceId, clientIds, actor) {
      const ids = unique(clientIds);
      const mine = new Set<string>();
      await withRetries(async () => {
        const resource = await mustGetResource(resourceId);
        const found = await getItems(db, tableName, ids.flatMap((c) => [keys.client(c), keys.clientLink(c, resourceId)]), now());
        const clients = ids.map((id) => {
          const item = found.get(keyString(keys.client(id)));
          const client = item && toRecord<ClientRecord>(item);
          if (!client || !visible(client, resource)) throw notFound(`Client ${id} not found.`);
          return client;
        });
        const todo = clients.filter((c) => {
          const existing = found.get(keyString(keys.clientLink(c.id, resourceId)));
          if (existing && !mine.has(String(existing.id))) throw conflict(`Client ${c.id} is already authorized to resource ${resourceId}.`);
          return !existing;
        });
        for (const c of todo) if (c.aggregations.resources >= MAX_RESOURCES_PER_CLIENT) throw tooManyResources(c.id);
        const links = todo.map((c) => newLink(c, resourceId, actor));
        await commitPlan(db, tableName, links.map((l, i) => linkUnit(l, grantsCopyIsCurrent(todo[i]!))), {
          // The clients' guards make the cap exact: each count above was read under its guard.
          guards: [{ key: keys.resource(resourceId), expected: resource.links_version }, ...todo.map((c) => ({ key: keys.client(c.id), expected: c.links_version }))],
          onCommitted: (idx) => idx.forEach((i) => mine.add(links[i]!.id)),
        });
      });
    },

    async revokeClients(resourceId, clientIds) {
      const ids = unique(clientIds);
      const done = new Set<string>();
      await withRetries(async () => {
        const resource = await mustGetResource(resourceId);
        const partitions = await Promise.all(ids.map((c) => readClientPartition(db, tableName, c)));
        const units: Write[][] = [];
        const guards: Guard[] = [{ key: keys.resource(resourceId), expected: resource.links_version }];
        const lastUnitOf = new Map<number, string>();
        ids.forEach((id, i) => {
          const p = partitions[i];
          if (done.has(id)) return;
          if (!p || !p.links.has(resourceId)) throw notFound(`Client ${id} is not authorized to resource ${resourceId}.`);
          guards.push(clientGuard(p));
          units.push(...unlinkUnits(id, resourceId, p.permissions.filter((x) => x.resource_id === resourceId), grantsCopyIsCurrent(p.client)));
          lastUnitOf.set(units.length - 1, id);
        });
        await commitPlan(db, tableName, units, {
          guards,
          onCommitted: (idx) => idx.forEach((i) => lastUnitOf.has(i) && done.add(lastUnitOf.get(i)!)),
        });
      });
    },

    async listForClient(clientId) {
      const items = await queryPrefix(db, tableName, keys.clientPartition(clientId), keys.clientLinkPrefix);
      if (items.length === 0 && !(await getItem(db, tableName, keys.client(clientId), now()))) throw notFound(`Client ${clientId} not found.`);
      return items.map((i) => toRecord<ClientResourceLink>(i));
    },

    async listForResource(resourceId) {
      await mustGetResource(resourceId);
      return (await queryGsi2(db, tableName, keys.resourceClients(resourceId))).map((i) => toRecord<ClientResourceLink>(i));
    },
  };
}
