import { fieldKit } from '../kit/fields.ts';

/**
 * The Clients area's field set (spec §2.2, §4.3): the kit's default policy, unknown fields are a
 * 400 naming them (a typo such as `is_globl` must not silently keep the default). Bounds are in
 * client-body-schemas.ts and docs/management-clients.md.
 */
export const clientFields = fieldKit('reject');
