import type { APIGatewayProxyEvent } from 'aws-lambda';
import { type Config, loadConfig } from '#shared/config.ts';
import { methodNotAllowed, notFound } from '#shared/errors.ts';
import { renderError } from '#shared/http/render-error.ts';
import type { HttpResponse } from '#shared/http/response.ts';
import { withSecurityHeaders } from '#shared/http/security-headers.ts';
import { matchRoute } from '#shared/routes/match-route.ts';
import { OAUTH_ERROR_PATHS } from '#shared/routes/oauth-routes.ts';

/**
 * The API's catch-all (infra/constructs/route-api.ts). API Gateway sends here every method a route
 * path does not serve (an `ANY` on each route path) and every unknown path (the root `{proxy+}`);
 * left alone it would answer both with 403 MISSING_AUTHENTICATION_TOKEN. docs/contract.md §2 wants 404
 * `not_found` and 405 `method_not_allowed` with `Allow`. It only consults the route table: no
 * table, no KMS, no runtime, and not the httpHandler pipeline, which needs a matched route.
 *
 * `event.path` is the request path without the stage (API Gateway strips `/<stage>` on the
 * execute-api host; the custom domain is mapped at the root), i.e. the route table's form.
 */
export function fallback(event: Pick<APIGatewayProxyEvent, 'httpMethod' | 'path'>, docsUrl: string | undefined): HttpResponse {
  const match = matchRoute(event.httpMethod, event.path);
  // `/docs/` and the like: a permanent redirect to the path without the slash (shared/routes/docs-routes.ts).
  if (match.kind === 'redirect') return withSecurityHeaders({ statusCode: 308, headers: { Location: match.location }, body: '' });
  // `route` can only mean API Gateway and the route table disagree (an encoded `/` in a
  // parameter, a stale deployment): nothing here can serve it, so it is not found.
  const error = match.kind === 'method_not_allowed' ? methodNotAllowed(match.allow) : notFound();
  // On an OAuth endpoint (docs/contract.md §2) with RFC 6749's `error` and `error_description` too.
  return withSecurityHeaders(renderError(error, docsUrl, OAUTH_ERROR_PATHS.has(event.path)));
}

let config: Config | undefined;

export const handler = async (event: APIGatewayProxyEvent): Promise<HttpResponse> => {
  config ??= loadConfig();
  return fallback(event, config.docsUrl);
};
