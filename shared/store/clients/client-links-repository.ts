import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conflict, notFound } from '../../errors.ts';
import type { ClientResourceLink } from '../../records/client-link-records.ts';
import type { ClientRecord } from '../../records/client-record.ts';
import { newAuditFields } from '../../records/common.ts';
import type { ResourceRecord } from '../../records/resource-record.ts';
import { toRecord } from '../core/entity.ts';
import { queryGsi2, queryPrefix } from '../core/reads/query-all.ts';
import { getItem, getItems } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { keyString } from '../core/writes.ts';
import { commitLinkChange, LinkPlan } from '../rbac/link-commit.ts';
import { linkUnit, MAX_RESOURCES_PER_CLIENT, unlinkUnits } from '../rbac/link-writes.ts';
import { clientHolder } from '../token-path/token-copies.ts';
import { readClientPartition } from './client-partition.ts';

/**
 * Client ↔ resource links (spec §2.5, §2.9; docs/contract.md §6). A link is `CLIENT#{c}` / `RESOURCE#{r}`
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

/**
 * docs/contract.md §8: messages name the path parameter or body field at fault, never the ids sent
 * (`client` says which: `The client` of the path, or `body.clients: a client`).
 */
const tooManyResources = (client: string) =>
  conflict(`${client} would have more than ${MAX_RESOURCES_PER_CLIENT} authorized resources; revoke one first.`);

export function clientLinksRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): ClientLinksRepository {
  const mustReadClient = async (clientId: string) => {
    const p = await readClientPartition(db, tableName, clientId);
    if (!p) throw notFound('Client not found.');
    return p;
  };
  const mustGetResource = async (resourceId: string) => {
    const item = await getItem(db, tableName, keys.resource(resourceId), now());
    if (!item) throw notFound('Resource not found.');
    return toRecord<ResourceRecord>(item);
  };
  /**
   * docs/contract.md §4: a non-global client only sees its own tenant's resources, and the system resource
   * (the management API), which every tenant shares: a tenant's own admin client is authorized on
   * it, and the tenant rules of the management API keep it inside its tenant.
   */
  const visible = (client: ClientRecord, resource: ResourceRecord | undefined) =>
    resource !== undefined && (client.is_global || resource.tenant_id === client.tenant_id || resource.resource_metadata.is_system);
  const newLink = (client: ClientRecord, resourceId: string, actor: string): ClientResourceLink => {
    const at = now().toISOString();
    return {
      id: uuidv7(),
      tenant_id: client.tenant_id,
      client_id: client.id,
      resource_id: resourceId,
      ...newAuditFields(actor, at),
    };
  };

  return {
    authorize: (clientId, resourceIds, actor) =>
      commitLinkChange(db, tableName, async (done) => {
        const ids = unique(resourceIds);
        const p = await mustReadClient(clientId);
        const found = await getItems(db, tableName, ids.map(keys.resource), now());
        for (const id of ids) {
          const item = found.get(keyString(keys.resource(id)));
          if (!visible(p.client, item && toRecord<ResourceRecord>(item))) throw notFound('body.resources: a resource was not found.');
        }
        const todo = ids.filter((id) => {
          const existing = p.links.get(id);
          if (existing && !done.has(existing.id)) throw conflict('body.resources: a resource is already authorized to this client.');
          return !existing;
        });
        if (p.client.aggregations.resources + todo.length > MAX_RESOURCES_PER_CLIENT) throw tooManyResources('The client');
        const plan = new LinkPlan().guard(keys.client(clientId), p.client.links_version);
        for (const id of todo) {
          const link = newLink(p.client, id, actor);
          plan.add([linkUnit(link, clientHolder(p.client))], link.id);
        }
        return plan;
      }),

    revoke: (clientId, resourceIds) =>
      commitLinkChange(db, tableName, async (done) => {
        const p = await mustReadClient(clientId);
        const plan = new LinkPlan().guard(keys.client(clientId), p.client.links_version);
        for (const id of unique(resourceIds)) {
          if (!p.links.has(id)) {
            if (done.has(id)) continue;
            throw notFound('body.resources: a resource is not authorized to this client.');
          }
          plan.add(
            unlinkUnits(
              clientHolder(p.client),
              id,
              p.permissions.filter((x) => x.resource_id === id),
            ),
            id,
          );
        }
        return plan;
      }),

    authorizeClients: (resourceId, clientIds, actor) =>
      commitLinkChange(db, tableName, async (done) => {
        const ids = unique(clientIds);
        const resource = await mustGetResource(resourceId);
        const found = await getItems(
          db,
          tableName,
          ids.flatMap((c) => [keys.client(c), keys.clientLink(c, resourceId)]),
          now(),
        );
        const clients = ids.map((id) => {
          const item = found.get(keyString(keys.client(id)));
          const client = item && toRecord<ClientRecord>(item);
          if (!client || !visible(client, resource)) throw notFound('body.clients: a client was not found.');
          return client;
        });
        const todo = clients.filter((c) => {
          const existing = found.get(keyString(keys.clientLink(c.id, resourceId)));
          if (existing && !done.has(String(existing.id))) throw conflict('body.clients: a client is already authorized to this resource.');
          return !existing;
        });
        for (const c of todo) if (c.aggregations.resources >= MAX_RESOURCES_PER_CLIENT) throw tooManyResources('body.clients: a client');
        const plan = new LinkPlan().guard(keys.resource(resourceId), resource.links_version);
        for (const c of todo) {
          // The clients' guards make the cap exact: each count above was read under its guard.
          plan.guard(keys.client(c.id), c.links_version);
          const link = newLink(c, resourceId, actor);
          plan.add([linkUnit(link, clientHolder(c))], link.id);
        }
        return plan;
      }),

    revokeClients: (resourceId, clientIds) =>
      commitLinkChange(db, tableName, async (done) => {
        const ids = unique(clientIds);
        const resource = await mustGetResource(resourceId);
        const partitions = await Promise.all(ids.map((c) => readClientPartition(db, tableName, c)));
        const plan = new LinkPlan().guard(keys.resource(resourceId), resource.links_version);
        ids.forEach((id, i) => {
          const p = partitions[i];
          if (done.has(id)) return;
          if (!p?.links.has(resourceId)) throw notFound('body.clients: a client is not authorized to this resource.');
          plan.guard(keys.client(id), p.client.links_version);
          plan.add(
            unlinkUnits(
              clientHolder(p.client),
              resourceId,
              p.permissions.filter((x) => x.resource_id === resourceId),
            ),
            id,
          );
        });
        return plan;
      }),

    async listForClient(clientId) {
      const items = await queryPrefix(db, tableName, keys.clientPartition(clientId), keys.clientLinkPrefix);
      if (items.length === 0 && !(await getItem(db, tableName, keys.client(clientId), now()))) throw notFound('Client not found.');
      return items.map((i) => toRecord<ClientResourceLink>(i));
    },

    async listForResource(resourceId) {
      await mustGetResource(resourceId);
      return (await queryGsi2(db, tableName, keys.resourceClients(resourceId))).map((i) => toRecord<ClientResourceLink>(i));
    },
  };
}
