import type { SecretBox } from '../../ports/secret-box.ts';
import type { IdentityProvidersRepository } from '../../store/federation/identity-providers-repository.ts';
import type { TenantsRepository } from '../../store/tenants/tenants-repository.ts';

/** What the Tenant Identity Providers use cases depend on, passed as an argument (docs/design.md §3.2). */
export interface IdentityProviderDeps {
  readonly providers: IdentityProvidersRepository;
  /** The tenant in the path must exist and be the caller's to see (docs/tenants.md "Who may call"). */
  readonly tenants: Pick<TenantsRepository, 'get'>;
  /** docs/contract.md §4 multi-tenant mode: single-tenant mode knows only the default tenant. */
  readonly multiTenant: boolean;
  /** docs/federation.md URL policy: plain http to a loopback host only where the stage allows it (local mode). */
  readonly allowLoopbackHttp: boolean;
  /** The list cursors' HMAC key (docs/lists.md §5). */
  readonly cursorKey: () => Promise<Buffer>;
  /** Seals the provider's client secret; the presenter's port (a view never carries the secret). */
  readonly secretBox: SecretBox;
}
