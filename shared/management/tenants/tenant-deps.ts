import type { SecretBox } from '../../keys/key-store.ts';
import type { TenantsAdminRepository } from '../../store/tenants/tenants-repository.ts';

/** What the Tenants use cases depend on, passed as an argument (docs/design.md §3.2). */
export interface TenantDeps {
  readonly tenants: TenantsAdminRepository;
  /** docs/contract.md §4 multi-tenant mode (a stage setting): single-tenant mode knows only the default tenant. */
  readonly multiTenant: boolean;
  /** The list cursors' HMAC key (docs/lists.md §5). */
  readonly cursorKey: () => Promise<Buffer>;
  /** The presenter opens sealed secrets with it (a Tenant carries none). */
  readonly secretBox: SecretBox;
  readonly now: () => Date;
}
