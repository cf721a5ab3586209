import * as v from 'valibot';
import { badRequest, isAppError } from '../../errors.ts';
import { fieldKit, idList, MAX_LINK_IDS, uuid } from './fields.ts';

/** Unknown fields are a 400 naming them, as in every management body. */
const fields = fieldKit('reject');

/**
 * `{permissions: [{resource_id, scopes: [scope_id]}]}` of grant / revoke on clients, roles and
 * users (spec §4.3). The 50-id bound of docs/contract.md §6 counts scope ids over the whole body:
 * that is the number of permission records the call changes.
 */
export const PermissionsBody = fields.object({
  permissions: v.pipe(
    v.array(fields.object({ resource_id: uuid, scopes: idList('scope') }), 'must be an array of {resource_id, scopes}'),
    v.minLength(1, `must hold 1 to ${MAX_LINK_IDS} entries`),
    v.check((ps) => ps.reduce((n, p) => n + p.scopes.length, 0) <= MAX_LINK_IDS, `must name at most ${MAX_LINK_IDS} scope ids in all`),
  ),
});
export type PermissionsInput = v.InferOutput<typeof PermissionsBody>;

/**
 * Runs a permission grant, naming the field in its 400 (docs/contract.md §2: a 400's message names the
 * field; the repositories' name only the ids, e.g. a scope not of its resource).
 */
export async function namingPermissionsField(grant: () => Promise<void>): Promise<void> {
  try {
    await grant();
  } catch (err) {
    if (isAppError(err) && err.status === 400) throw badRequest(`body.permissions: ${err.message}`, { cause: err });
    throw err;
  }
}
