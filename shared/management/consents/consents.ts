import { notFound } from '../../errors.ts';
import { consentsCollection, type ListEnvelope, type ListParams, listQuerySchema } from '../../lists/index.ts';
import type { ConsentRecord } from '../../store/sessions/consents-repository.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { defineEntity, pickView } from '../kit/entity.ts';
import { fieldKit, uuid } from '../kit/fields.ts';
import { listChildren } from '../kit/present-record.ts';
import type { ConsentDeps } from './consent-deps.ts';

/** A User Grant as callers see it (docs/contract.md §6: `{id, client_id, resource_id, scopes, created_at}` and the rest of the record). */
export const consentEntity = defineEntity<ConsentRecord, ConsentDeps>({
  noun: 'Grant',
  collection: consentsCollection,
  view: pickView<ConsentRecord>(['id', 'tenant_id', 'user_id', 'client_id', 'resource_id', 'scopes', 'created_at', 'updated_at']),
});

export const consentListQuery = listQuerySchema(consentsCollection);

/** GET /users/{user_id}/grants (docs/contract.md §6, `read:grants`): the user's consents, a §3 list; another tenant's user is 404. */
export function listConsents(deps: ConsentDeps, access: ManagementAccess, userId: string, params: ListParams): Promise<ListEnvelope> {
  const parent = { repo: deps.users, id: userId, noun: 'User' };
  return listChildren(consentEntity, deps, access, parent, `users/${userId}/grants`, () => deps.consents.listConsents(userId), params);
}

/**
 * DELETE /users/{user_id}/grants/{grant_id} (docs/contract.md §6, `delete:grants`): withdraws the consent
 * and revokes that client's refresh tokens of the user (their families: the access tokens issued
 * from them turn inactive too). The next authorization of that client asks again. 404 for a user
 * the caller cannot see or a grant the user does not have.
 */
export async function deleteConsent(deps: ConsentDeps, access: ManagementAccess, userId: string, grantId: string): Promise<void> {
  await loadVisible(deps.users, access.ctx, userId, 'User');
  const deleted = await deps.consents.deleteConsent(userId, grantId);
  if (!deleted) throw notFound('Grant not found.');
}

const fields = fieldKit('reject');
export const ConsentPath = fields.object({ user_id: uuid, grant_id: uuid });
