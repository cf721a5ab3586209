import * as v from 'valibot';
import { jsonObject, uuid } from './resource-fields.ts';

/** API.md §6: link changes take at most 50 ids. */
export const MAX_LINK_IDS = 50;

/** `POST|DELETE /resources/{id}/clients`: `{clients: [client_id]}`, the mirror of `{resources: [...]}`. */
export const clientIdsBody = jsonObject({
  clients: v.pipe(
    v.array(uuid, 'must be an array of client ids'),
    v.minLength(1, 'must name at least one client'),
    v.maxLength(MAX_LINK_IDS, `must name at most ${MAX_LINK_IDS} clients`),
  ),
});

export const resourcePath = jsonObject({ resource_id: uuid });
export const scopePath = jsonObject({ resource_id: uuid, scope_id: uuid });

export type ClientIdsBody = v.InferOutput<typeof clientIdsBody>;
