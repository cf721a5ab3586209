import * as v from 'valibot';
import { jsonString } from '../http/response-members.ts';

/** Spec 4.4. */
export const HealthResponseSchema = v.object({
  server_name: jsonString,
  server_version: jsonString,
  server_status: v.picklist(['ok', 'degraded']),
  server_description: jsonString,
  failed_dependencies: v.optional(jsonString),
});
