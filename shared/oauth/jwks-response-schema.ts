import * as v from 'valibot';
import { jsonString } from '../http/response-members.ts';

/** RFC 7517 §5: public members only. */
export const JwksResponseSchema = v.object({
  keys: v.array(v.object({ kty: jsonString, kid: jsonString, alg: v.optional(jsonString), use: v.optional(jsonString) })),
});
