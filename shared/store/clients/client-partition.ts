import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ClientPermission, ClientResourceLink } from '../../records/client-link-records.ts';
import type { ClientRecord } from '../../records/client-record.ts';
import { toRecord } from '../core/entity.ts';
import { queryAll } from '../core/reads/query-all.ts';
import { keys } from '../core/table-keys.ts';

/** Everything in `CLIENT#{id}`: the record, its resource links and its permissions. */
export interface ClientPartition {
  client: ClientRecord;
  /** By resource id. */
  links: Map<string, ClientResourceLink>;
  permissions: ClientPermission[];
}

/**
 * One consistent Query of the client's partition (docs/data-model.md pattern 1). The token
 * endpoint's read and the starting point of every link/permission change: the `links_version`
 * read here is the one their transactions are conditioned on.
 */
export async function readClientPartition(
  db: DynamoDBDocumentClient,
  tableName: string,
  clientId: string,
): Promise<ClientPartition | undefined> {
  const items = await queryAll(db, {
    TableName: tableName,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': 'PK' },
    ExpressionAttributeValues: { ':pk': keys.clientPartition(clientId) },
    ConsistentRead: true,
  });
  let client: ClientRecord | undefined;
  const links = new Map<string, ClientResourceLink>();
  const permissions: ClientPermission[] = [];
  for (const item of items) {
    if (item.type === 'Client') client = toRecord<ClientRecord>(item);
    else if (item.type === 'ClientResourceLink') {
      const link = toRecord<ClientResourceLink>(item);
      links.set(link.resource_id, link);
    } else if (item.type === 'ClientPermission') permissions.push(toRecord<ClientPermission>(item));
  }
  return client ? { client, links, permissions } : undefined;
}
