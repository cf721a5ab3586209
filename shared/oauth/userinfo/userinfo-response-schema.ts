import * as v from 'valibot';
import { jsonString } from '../../http/response-members.ts';

/** OIDC Core §5.3.2: `sub` always, the other claims by granted scope (docs/contract.md §7.1). */
export const UserinfoResponseSchema = v.object({ sub: jsonString });
