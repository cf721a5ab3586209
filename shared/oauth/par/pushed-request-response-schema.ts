import * as v from 'valibot';
import { jsonSeconds, jsonString } from '../../http/response-members.ts';

/** RFC 9126 §2.2: the pushed authorization response (201). */
export const PushedRequestResponseSchema = v.object({
  request_uri: jsonString,
  expires_in: jsonSeconds,
});
