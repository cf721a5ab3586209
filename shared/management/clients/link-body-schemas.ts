import type * as v from 'valibot';
import { idList } from '../kit/fields.ts';
import { clientFields } from './client-fields.ts';

/** `{resources: [resource_id]}` of authorize / revoke (spec §4.3). */
export const ResourcesBody = clientFields.object({ resources: idList('resource') });
export type ResourcesInput = v.InferOutput<typeof ResourcesBody>;
