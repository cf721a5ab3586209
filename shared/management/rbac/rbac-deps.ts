import type { SecretBox } from '../../keys/key-store.ts';
import type { RbacRecordReads } from '../../rbac/effective-permissions.ts';
import type { GroupsRepository } from '../../store/rbac/groups-repository.ts';
import type { ResourcesRepository } from '../../store/resources/resources-repository.ts';
import type { ScopesRepository } from '../../store/resources/scopes-repository.ts';
import type { UsersRepository } from '../../store/users/users-repository.ts';

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
