import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ClientRecord, TokenGrants } from '../../records/client-record.ts';
import { readClientPartition } from '../clients/client-partition.ts';
import { toRecord } from '../core/entity.ts';
import { getItem } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';

/** The token endpoint's view of a client: the record plus what it may ask tokens for. */
export interface ClientWithGrants {
  client: ClientRecord;
  /** Ids of the resources authorized to the client. */
  resources: Set<string>;
  /** Resource id → ids of the scopes granted on it. */
  grants: Map<string, Set<string>>;
}

export interface ClientTokenReads {
  /** THE TOKEN PATH: the client with its resources and grants, from its item alone (one consistent GetItem). */
  getClientWithGrants(clientId: string): Promise<ClientWithGrants | undefined>;
  /** The same from an item already read (the token path's BatchGetItem); reads only for an item that predates `token_grants`. */
  clientWithGrantsOfItem(item: Record<string, unknown>): Promise<ClientWithGrants | undefined>;
}

/**
 * The token path's reads of a client, apart from the clients repository and its write paths: the
 * OAuth functions bundle only these (docs/benchmarks.md "Token function bundle"), the repository
 * offers the same methods to management and bootstrap.
 */
export function clientTokenReads(db: DynamoDBDocumentClient, tableName: string, now: () => Date): ClientTokenReads {
  const withGrants = async (item: Record<string, unknown>): Promise<ClientWithGrants | undefined> => {
    const client = toRecord<ClientRecord>(item);
    if (client.token_grants && client.token_grants_version === client.links_version) return grantsOf(client, client.token_grants);
    // No copy, or one that missed a change (ClientRecord `token_grants_version`): the partition.
    const partition = await readClientPartition(db, tableName, client.id);
    if (!partition) return undefined;
    const grants: TokenGrants = Object.fromEntries([...partition.links.keys()].map((r) => [r, {}]));
    for (const p of partition.permissions) (grants[p.resource_id] ??= {})[p.scope_id] = true;
    return grantsOf(partition.client, grants);
  };
  return {
    async getClientWithGrants(clientId) {
      const item = await getItem(db, tableName, keys.client(clientId), now());
      return item ? withGrants(item) : undefined;
    },
    clientWithGrantsOfItem: (item) => withGrants(item),
  };
}

function grantsOf(client: ClientRecord, tokenGrants: TokenGrants): ClientWithGrants {
  const grants = new Map<string, Set<string>>();
  for (const [resourceId, scopes] of Object.entries(tokenGrants)) {
    // In id (= creation) order, as the partition returns them: a token's scopes come out stable.
    const ids = Object.keys(scopes).sort();
    if (ids.length) grants.set(resourceId, new Set(ids));
  }
  return { client, resources: new Set(Object.keys(tokenGrants)), grants };
}
