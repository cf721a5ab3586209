import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { groupLinksRepository } from './group-links-repository.ts';

/**
 * The links of a deleted group and the mirrors they keep, after the record and its marker went
 * in one transaction (from then on the group grants nothing): its member links with each user's
 * `group_ids` and count (pages of 25 links), its role links (the group's `role_ids` went with the
 * record), then its nesting links one edge at a time under the
 * tenant's graph version (children's `parent_ids`/`ancestor_ids`/`depth` and the parents'
 * `height` recomputed). Every step re-reads what is left, so a re-run finishes an interrupted one.
 */
export async function sweepGroupLinks(db: DynamoDBDocumentClient, tableName: string, now: () => Date, groupId: string): Promise<void> {
  const links = groupLinksRepository(db, tableName, now);
  await links.sweepMembers(groupId);
  await links.sweepRoles(groupId);
  await links.sweepNesting(groupId);
}
