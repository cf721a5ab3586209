import { introspectionHandler } from '#shared/oauth/introspection/introspection-handler.ts';
import { TOKENINFO_FIELDS, tokeninfoView } from '#shared/oauth/introspection/introspection-views.ts';
import { TokeninfoResponseSchema } from '#shared/oauth/introspection/tokeninfo-response-schema.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';

/** POST /tokeninfo: the spec's introspection (2.11), ISO timestamps and `subject`. */
export const handler = introspectionHandler(tokeninfoView, TOKENINFO_FIELDS, TokeninfoResponseSchema, oauthDeps, '/tokeninfo');
