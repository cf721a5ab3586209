import { NO_DATA } from './access-profiles.ts';
import { none } from './auth-rules.ts';
import type { Route } from './route.ts';

/**
 * The API's own documentation (docs/openapi.md): the OpenAPI document generated from the route
 * table and the reference page (Swagger UI) with its files, all from the functions' bundles.
 */
export const DOCS_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/openapi.json', handler: 'functions/docs/openapi-document', auth: none, access: NO_DATA },
  { method: 'GET', path: '/docs', handler: 'functions/docs/reference-page', auth: none, access: NO_DATA },
  { method: 'GET', path: '/docs/{file}', handler: 'functions/docs/reference-page', auth: none, access: NO_DATA },
];

/**
 * Paths also asked for with a trailing slash, answered by a permanent redirect to the path (the
 * local server and the API's fallback function, through match-route.ts). `/docs/` is what people
 * type; serving the page there would break its relative file URLs (`docs/swagger-ui.css`).
 * API Gateway routes `/docs/` to no `/docs` method, so the fallback answers it (docs/openapi.md).
 */
export const TRAILING_SLASH_REDIRECTS: readonly string[] = ['/docs'];
