import type * as v from 'valibot';
import { bearerToken } from '../../http/authenticate.ts';
import { oauthHandler } from '../../http/oauth-handler.ts';
import { jsonResponse, NO_STORE } from '../../http/response.ts';
import { json } from '../../http/response-spec.ts';
import type { Runtime } from '../../runtime.ts';
import { claimedClientId } from '../authenticate-client.ts';
import type { OAuthDeps } from '../oauth-deps.ts';
import { authenticateIntrospectionCaller, type Introspection, introspectFor } from './introspect-token.ts';
import { IntrospectionBodySchema, IntrospectionQuerySchema, projectFields, requireToken } from './introspection-request.ts';

/**
 * `/tokeninfo` and `/introspect` differ only in the view of the same introspection. The function
 * hands in its dependencies (`depsOf`, from shared/wiring/oauth.ts).
 */
export function introspectionHandler(
  view: (r: Introspection) => Record<string, unknown>,
  fields: readonly string[],
  answer: v.GenericSchema,
  depsOf: (runtime: Runtime) => OAuthDeps,
  endpoint: '/introspect' | '/tokeninfo',
) {
  const responses = { 200: json(answer) };
  return oauthHandler(
    { oauth: true, quietSuccess: true, body: IntrospectionBodySchema, query: IntrospectionQuerySchema, responses },
    async (req) => {
      const deps = depsOf(req.runtime);
      // One DynamoDB read for what a cold container needs below (docs/tokens.md "Hot path").
      const presented = [bearerToken(req.headers), req.body.token ?? req.query.token].filter((t) => t !== undefined);
      await deps.preloadIntrospection(claimedClientId(req.headers, req.body), presented);
      const caller = await authenticateIntrospectionCaller(req.headers, req.body, deps, endpoint);
      const result = await introspectFor(requireToken(req.body, req.query), caller, deps);
      return jsonResponse(200, projectFields(view(result), req.query.fields, fields), NO_STORE);
    },
  );
}
