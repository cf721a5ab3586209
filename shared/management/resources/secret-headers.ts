import { NO_STORE } from '../../http/response.ts';
import type { ResourceAccess } from './resource-deps.ts';

/** API.md §2: anything that may carry a secret is `Cache-Control: no-store` (RFC 6749 §5.1's rule). */
export const secretHeaders = (access: ResourceAccess): Record<string, string> => (access.readsKeys ? { ...NO_STORE } : {});
