import { IntrospectResponseSchema } from '#shared/oauth/introspection/introspect-response-schema.ts';
import { introspectionHandler } from '#shared/oauth/introspection/introspection-handler.ts';
import { INTROSPECT_FIELDS, introspectView } from '#shared/oauth/introspection/introspection-views.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';

/** POST /introspect: RFC 7662 §2.2, NumericDates and registered claim names. */
export const handler = introspectionHandler(introspectView, INTROSPECT_FIELDS, IntrospectResponseSchema, oauthDeps, '/introspect');
