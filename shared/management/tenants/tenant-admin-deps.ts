import type { TenantAdminsRepository } from '../../store/tenants/tenant-admins-repository.ts';
import type { UsersRepository } from '../../store/users/users-repository.ts';
import type { TenantDeps } from './tenant-deps.ts';

/** What the Tenant admins use cases depend on (docs/design.md §3.2): the Tenants deps and the admin links. */
export interface TenantAdminDeps extends TenantDeps {
  readonly tenantAdmins: TenantAdminsRepository;
  /** `user_data` of the links. */
  readonly users: Pick<UsersRepository, 'get'>;
  /** Drops this container's cached user item (its `tenant_admin` mirror), so its next token and scope check see the change at once. */
  readonly forgetUser: (userId: string) => void;
}
