import type { SecretBox } from '../../keys/key-store.ts';
import { perRuntime } from '../../per-runtime.ts';
import type { RbacRecordReads } from '../../rbac/effective-permissions.ts';
import type { Runtime } from '../../runtime.ts';
import { type GroupsRepository, groupsRepository } from '../../store/rbac/groups-repository.ts';
import { type ResourcesRepository, resourcesRepository } from '../../store/resources/resources-repository.ts';
import { type ScopesRepository, scopesRepository } from '../../store/resources/scopes-repository.ts';
import { rbacRecordReads } from '../../store/token-path/rbac-records.ts';
import { type UsersRepository, usersRepository } from '../../store/users/users-repository.ts';

/** What the effective-permission and effective-group lists depend on (docs/design.md §3.2). */
export interface RbacDeps {
  readonly users: Pick<UsersRepository, 'get'>;
  /** Role and group records, read consistently (no cache: the management API reads its own writes). */
  readonly rbac: RbacRecordReads;
  /** `group_data` under `expand=all`. */
  readonly groups: Pick<GroupsRepository, 'get'>;
  /** `resource_data` / `scope_data` under `expand=all`. */
  readonly resources: Pick<ResourcesRepository, 'get'>;
  readonly scopes: Pick<ScopesRepository, 'list'>;
  readonly secretBox: SecretBox;
  /** The list cursors' HMAC key (docs/lists.md §5). */
  readonly cursorKey: () => Promise<Buffer>;
}

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const rbacDeps = perRuntime((runtime: Runtime): RbacDeps => {
  const { db, config, now, secretBox } = runtime;
  return {
    users: usersRepository(db, config.tableName, now),
    rbac: rbacRecordReads(db, config.tableName, now),
    groups: groupsRepository(db, config.tableName, now),
    resources: resourcesRepository(db, config.tableName, now, secretBox),
    scopes: scopesRepository(db, config.tableName, now),
    secretBox,
    cursorKey: () => runtime.serviceSecret('cursor'),
  };
});
