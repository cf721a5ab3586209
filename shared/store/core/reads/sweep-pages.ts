import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { commitPlan } from '../commit-plan.ts';
import { withRetries } from '../retry.ts';
import { type Key, keyString, type Write } from '../writes.ts';
import { queryPage } from './query-all.ts';
import { getItems } from './read-items.ts';

type Item = Record<string, unknown>;

/**
 * How one link of a page goes: `farEnd`, the key of the record at its other end (read for the
 * whole page in one batch: an end already gone has no count or mirror left to fix), and `unit`,
 * the writes that remove the link given whether that end still exists.
 */
export interface SweepPlan {
  readonly farEnd?: (link: Item) => Key;
  readonly unit: (link: Item, farEndExists: boolean) => Write[];
}

/**
 * Where a cascade finds the link items of a deleted record: a prefix of a partition (read
 * consistently), or a GSI2 partition (the links seen from their far end; eventually consistent).
 */
export type SweepSource = { readonly partition: string; readonly prefix: string } | { readonly gsi2: string };

/**
 * The bounded, re-runnable cleanup every delete cascade runs after its record is gone
 * (docs/data-model.md §4): the links of `source`, `pageSize` at a time, each page ONE transaction
 * of the units `plan` gives its links (the link items and the counts and mirrors of their far
 * ends, so every count is exact after every page). A page that loses a race is read and planned
 * again; pages move on by the Query's own cursor, so links an index still shows after their delete
 * are stepped over, not read forever. Items found through GSI2 are re-read consistently first and
 * only the ones still there are planned: a crash between pages, a second sweep running at once, or
 * a re-run of a finished one never removes a link (or moves a count) twice. Returns how many links
 * went.
 */
export async function sweepPages(
  db: DynamoDBDocumentClient,
  tableName: string,
  source: SweepSource,
  pageSize: number,
  plan: SweepPlan,
): Promise<number> {
  const query: QueryCommandInput =
    'gsi2' in source
      ? {
          TableName: tableName,
          IndexName: 'GSI2',
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': 'GSI2PK' },
          ExpressionAttributeValues: { ':pk': source.gsi2 },
          Limit: pageSize,
        }
      : {
          TableName: tableName,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
          ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
          ExpressionAttributeValues: { ':pk': source.partition, ':prefix': source.prefix },
          ConsistentRead: true,
          Limit: pageSize,
        };
  let removed = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const from = start;
    const page = await withRetries(async () => {
      const found = await queryPage(db, { ...query, ...(from ? { ExclusiveStartKey: from } : {}) });
      let links = found.items;
      if ('gsi2' in source && links.length) {
        const live = await getItems(
          db,
          tableName,
          links.map((l) => ({ PK: String(l.PK), SK: String(l.SK) })),
          new Date(),
        );
        links = links.flatMap((l): Item[] => {
          const item = live.get(keyString({ PK: String(l.PK), SK: String(l.SK) }));
          return item ? [item] : [];
        });
      }
      const ends = plan.farEnd && links.length ? await getItems(db, tableName, links.map(plan.farEnd), new Date()) : new Map();
      const units = links.map((l) => plan.unit(l, plan.farEnd ? ends.has(keyString(plan.farEnd(l))) : true));
      if (units.length) await commitPlan(db, tableName, units);
      return { n: links.length, next: found.lastEvaluatedKey };
    });
    removed += page.n;
    start = page.next;
  } while (start);
  return removed;
}
