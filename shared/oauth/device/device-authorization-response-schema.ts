import * as v from 'valibot';
import { jsonSeconds, jsonString } from '../../http/response-members.ts';

/**
 * RFC 8628 §3.2 device authorization response (spec 2.13). `fields` (spec 4.2) may leave out any
 * member but `device_code` (device-authorization.ts), so only it is required here; without `fields`
 * every member is there.
 */
export const DeviceAuthorizationResponseSchema = v.object({
  device_code: jsonString,
  user_code: v.optional(jsonString),
  verification_uri: v.optional(jsonString),
  verification_uri_complete: v.optional(jsonString),
  expires_in: v.optional(jsonSeconds),
  interval: v.optional(jsonSeconds),
});
