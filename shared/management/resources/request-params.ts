import type * as v from 'valibot';
import { idList, uuid } from '../kit/fields.ts';
import { resourceFields } from './resource-fields.ts';

/** `POST|DELETE /resources/{id}/clients`: `{clients: [client_id]}`, the mirror of `{resources: [...]}`. */
export const clientIdsBody = resourceFields.object({ clients: idList('client') });

export const resourcePath = resourceFields.object({ resource_id: uuid });
export const scopePath = resourceFields.object({ resource_id: uuid, scope_id: uuid });

export type ClientIdsBody = v.InferOutput<typeof clientIdsBody>;
