import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { commitPlan, type Guard } from '../core/commit-plan.ts';
import { withRetries } from '../core/retry.ts';
import type { Key, Write } from '../core/writes.ts';

/**
 * What one attempt of a link change commits: units in order (each a list of writes that land
 * together), the optimistic locks they rely on, and what each unit completes.
 */
export class LinkPlan {
  readonly units: Write[][] = [];
  readonly guards: Guard[] = [];
  /** Per unit: the change it completes (a link id, a resource id, a pair), if any. */
  readonly marks: (string | undefined)[] = [];

  /**
   * Adds the units of one requested change; `mark` names the change and is recorded when its LAST
   * unit commits (a change split in several units, e.g. an unlink with many permissions, is done
   * only then).
   */
  add(units: readonly (readonly Write[])[], mark?: string): this {
    units.forEach((u, i) => {
      this.units.push([...u]);
      this.marks.push(i === units.length - 1 ? mark : undefined);
    });
    return this;
  }

  /** Requires `links_version = expected` on `key` in every chunk that touches it (docs/data-model.md §1). */
  guard(key: Key, expected: number): this {
    this.guards.push({ key, expected });
    return this;
  }
}

/**
 * The one sequence of every link and permission change (client ↔ resource links from either
 * side, permissions; later role members, group members, group roles, nested groups, user roles,
 * tenant admins): read on consistent reads, validate and decide what to write (`plan` throws the
 * 404/409 the caller gets, before anything is written), commit as one transaction (or ordered,
 * self-consistent chunks above 100 items), and on a lost race (a guard or condition failed) read
 * and plan again.
 *
 * Retry-safe: a plan too big for one transaction may have committed some chunks before the race;
 * the changes those chunks completed are handed to the next `plan` as `done`, which must treat
 * them as done (neither a 409 "already linked" nor a 404 "not linked" for what this call itself
 * just did).
 */
export async function commitLinkChange(
  db: DynamoDBDocumentClient,
  tableName: string,
  plan: (done: ReadonlySet<string>) => Promise<LinkPlan>,
): Promise<void> {
  const done = new Set<string>();
  await withRetries(async () => {
    const p = await plan(done);
    await commitPlan(db, tableName, p.units, {
      guards: p.guards,
      onCommitted: (indexes) => {
        for (const i of indexes) {
          const mark = p.marks[i];
          if (mark !== undefined) done.add(mark);
        }
      },
    });
  });
}
