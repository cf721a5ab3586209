import * as v from 'valibot';
import { objectMessage, uuid } from './resource-fields.ts';

/** API.md §6: link changes take at most 50 ids. */
export const MAX_LINK_IDS = 50;

/** `POST|DELETE /resources/{id}/clients`: `{clients: [client_id]}`, the mirror of `{resources: [...]}`. */
export const clientIdsBody = v.object(
  {
    clients: v.pipe(
      v.array(uuid, 'must be an array of client ids'),
      v.minLength(1, 'must name at least one client'),
      v.maxLength(MAX_LINK_IDS, `must name at most ${MAX_LINK_IDS} clients`),
    ),
  },
  objectMessage,
);

export const resourcePath = v.object({ resource_id: uuid }, objectMessage);
export const scopePath = v.object({ resource_id: uuid, scope_id: uuid }, objectMessage);

export type ClientIdsBody = v.InferOutput<typeof clientIdsBody>;
