import type { AuditFields } from './common.ts';

/**
 * A user's account at an external provider (docs/contract.md §6 and §7.7). Stored at `USER#{u}` /
 * `IDENTITY#{id}`; (provider, provider user) is unique through the marker
 * `UNIQUE#IDENTITY#{provider_id}#{provider_user_id}`, whose `user_id` finds the user at sign-in.
 */
export interface UserIdentityRecord extends AuditFields {
  id: string;
  tenant_id: string;
  user_id: string;
  provider_id: string;
  /** The provider's `sub` (OIDC Core §2): unique and never reassigned by that provider. */
  provider_user_id: string;
}
