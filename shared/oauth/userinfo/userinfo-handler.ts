import { oauthHandler } from '../../http/oauth-handler.ts';
import { jsonResponse, NO_STORE } from '../../http/response.ts';
import { json } from '../../http/response-spec.ts';
import type { Runtime } from '../../runtime.ts';
import { pickFields } from '../introspection/introspection-request.ts';
import type { OAuthDeps } from '../oauth-deps.ts';
import { USERINFO_CLAIMS } from '../user-tokens/user-claims.ts';
import { userInfo } from './userinfo.ts';
import { presentedToken, UserinfoBodySchema, UserinfoQuerySchema } from './userinfo-request.ts';
import { UserinfoResponseSchema } from './userinfo-response-schema.ts';

/**
 * GET and POST /userinfo (OIDC Core §5.3, spec 4.2 Get user info): the user's claims, never cached
 * (`no-store`). The function hands in its dependencies (`depsOf`, from shared/wiring/oauth.ts).
 */
export const userinfoHandler = (depsOf: (runtime: Runtime) => OAuthDeps) =>
  oauthHandler(
    {
      oauth: true,
      quietSuccess: true,
      bearerToken: true,
      body: UserinfoBodySchema,
      query: UserinfoQuerySchema,
      responses: { 200: json(UserinfoResponseSchema) },
    },
    async (req) => {
      const deps = depsOf(req.runtime);
      const presented = presentedToken(req.route.method, req.headers, req.body);
      // At most one DynamoDB read: what the checks below need and the caches lack (docs/tokens.md "/userinfo").
      if (presented !== undefined) await deps.preloadBearer(presented.token);
      const claims = await userInfo(presented && { ...presented, proof: req.headers.dpop, method: req.route.method }, deps);
      return jsonResponse(200, pickFields(claims, req.query.fields, USERINFO_CLAIMS, 'sub'), NO_STORE);
    },
  );
