import * as v from 'valibot';
import { jsonSeconds, jsonString } from '../http/response-members.ts';

/** RFC 8628 §3.2 device authorization response (spec 2.13). */
export const DeviceAuthorizationResponseSchema = v.object({
  device_code: jsonString,
  user_code: jsonString,
  verification_uri: jsonString,
  verification_uri_complete: v.optional(jsonString),
  expires_in: jsonSeconds,
  interval: v.optional(jsonSeconds),
});
