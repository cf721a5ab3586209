import { errorPage } from '../html/page.ts';
import type { HttpResponse } from '../http/response.ts';
import type { BrowserDeps } from './browser-deps.ts';
import { type CallbackRequest, finishFederatedLogin } from './federated-login.ts';
import { completeLogin } from './login-attempts.ts';

/**
 * GET `/login/callback` (docs/federation.md "Federated login"): the provider's answer finished
 * by federated-login.ts, then the login page's own completion (a new session, the login recorded
 * on the interaction, on to consent), with `amr` `fed`.
 */
export async function loginCallback(req: CallbackRequest, deps: BrowserDeps): Promise<HttpResponse> {
  const federation = deps.federation;
  if (!federation) return errorPage(404, 'Not found', 'Sign-in with an identity provider is not offered here.');
  return finishFederatedLogin(req, {
    federation,
    interactions: deps.interactions,
    completeLogin: (interaction, user) =>
      completeLogin({ interactionId: interaction.id, headers: req.headers, origin: req.origin }, interaction, user, ['fed'], deps, {
        method: 'federated',
      }),
  });
}
