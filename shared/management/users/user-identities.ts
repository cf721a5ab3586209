import type * as v from 'valibot';
import { notFound } from '../../errors.ts';
import {
  type ListEnvelope,
  type ListParams,
  listQuerySchema,
  type RecordParams,
  recordQuerySchema,
  userIdentitiesCollection,
} from '../../lists/index.ts';
import type { UserIdentityRecord } from '../../records/user-identity-record.ts';
import { identityProviderEntity } from '../identity-providers/identity-provider-entity.ts';
import { isVisible, loadVisible, type ManagementAccess } from '../kit/access.ts';
import { defineEntity, pickView, type View } from '../kit/entity.ts';
import { fieldKit, text, uuid } from '../kit/fields.ts';
import { addLinkedData, defineLinkedRecord } from '../kit/linked-data.ts';
import { listChildren, presentRecord } from '../kit/present-record.ts';
import type { UserIdentityDeps } from './user-identity-deps.ts';

/**
 * `provider_data` (docs/contract.md §6 link records): the linked identity provider as its own API shows
 * it (never its secret), `null` if it was deleted meanwhile or the caller cannot see it.
 */
const providerData = defineLinkedRecord<Pick<UserIdentityDeps, 'providers'>>({
  idField: 'provider_id',
  as: 'provider_data',
  async load(deps, links, access) {
    const out = new Map<string, View | null>();
    await Promise.all(
      links.map(async (l) => {
        const key = `${l.provider_id}`;
        if (out.has(key)) return;
        out.set(key, null);
        const p = await deps.providers.byId(String(l.tenant_id), key);
        out.set(key, p && isVisible(access.ctx, p) ? identityProviderEntity.view(p, access) : null);
      }),
    );
    return out;
  },
});

/** A User Identity (docs/contract.md §7.7): `{id, user_id, provider_id, provider_user_id}` with its tenant and audit fields. */
export const userIdentityEntity = defineEntity<UserIdentityRecord, Pick<UserIdentityDeps, 'providers'>>({
  noun: 'Identity',
  collection: userIdentitiesCollection,
  view: pickView<UserIdentityRecord>([
    'id',
    'tenant_id',
    'user_id',
    'provider_id',
    'provider_user_id',
    'created_by',
    'created_at',
    'updated_by',
    'updated_at',
  ]),
  expand: (deps, views, access) => addLinkedData(deps, views, [providerData], access),
});

export const userIdentityListQuery = listQuerySchema(userIdentitiesCollection);
export const userIdentityRecordQuery = recordQuerySchema(userIdentitiesCollection);

const fields = fieldKit('reject');

/** OIDC Core §2: `sub` is at most 255 ASCII characters; the same bound as a provider's ID token (verify-provider-id-token.ts). */
export const PROVIDER_USER_ID_MAX = 255;

/** POST /users/{user_id}/identities. */
export const LinkIdentityBody = fields.object({ provider_id: uuid, provider_user_id: text(PROVIDER_USER_ID_MAX) });
export type LinkIdentityInput = v.InferOutput<typeof LinkIdentityBody>;
export const UserIdentityPath = fields.object({ user_id: uuid, identity_id: uuid });

/** GET /users/{user_id}/identities (`read:users`): a §3 list; another tenant's user is 404 like an unknown one. */
export function listUserIdentities(
  deps: UserIdentityDeps,
  access: ManagementAccess,
  userId: string,
  params: ListParams,
): Promise<ListEnvelope> {
  const parent = { repo: deps.users, id: userId, noun: 'User' };
  return listChildren(userIdentityEntity, deps, access, parent, `users/${userId}/identities`, () => deps.identities.list(userId), params);
}

/**
 * POST /users/{user_id}/identities (`update:users`; docs/contract.md §7.7): 201 with the identity. The
 * provider must be one of the user's tenant: an unknown one, or another tenant's, is 404 naming
 * `body.provider_id`, as every link body with an unknown id (kit/access.ts `loadAllVisible`). A
 * (provider, provider user) pair linked to anyone already is 409 naming `body.provider_user_id`.
 */
export async function linkUserIdentity(
  deps: UserIdentityDeps,
  access: ManagementAccess,
  userId: string,
  body: LinkIdentityInput,
  params: RecordParams,
): Promise<View> {
  const user = await loadVisible(deps.users, access.ctx, userId, 'User');
  const provider = await deps.providers.byId(user.tenant_id, body.provider_id);
  if (!provider) throw notFound('body.provider_id: an identity provider was not found.');
  const identity = await deps.identities.link(user, { providerId: provider.id, providerUserId: body.provider_user_id }, access.ctx.actor);
  return presentRecord(userIdentityEntity, deps, access, identity, params);
}

/** DELETE /users/{user_id}/identities/{identity_id} (`update:users`): 204; 404 for a user the caller cannot see or an identity it does not have. */
export async function unlinkUserIdentity(
  deps: UserIdentityDeps,
  access: ManagementAccess,
  userId: string,
  identityId: string,
): Promise<void> {
  await loadVisible(deps.users, access.ctx, userId, 'User');
  if (!(await deps.identities.unlink(userId, identityId))) throw notFound('Identity not found.');
}
