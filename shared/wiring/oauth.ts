/**
 * The token path's dependencies (functions/oauth/: /token, /revoke, /introspect, /tokeninfo,
 * /userinfo): read planning and per-container caches in token-path/. `/authorize` and
 * `/device_code` add what only they write (authorize.ts), kept apart so the token function's
 * bundle carries none of it.
 */
export { oauthDeps } from './token-path/token-path-records.ts';
