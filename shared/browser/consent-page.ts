import { html } from '../html/html.ts';
import { errorPage, htmlPage } from '../html/page.ts';
import type { HttpResponse } from '../http/response.ts';
import { type EventOrigin, newEvent } from '../records/event-record.ts';
import type { InteractionRecord } from '../store/sessions/interactions-repository.ts';
import type { SessionRecord } from '../store/sessions/sessions-repository.ts';
import type { BrowserDeps } from './browser-deps.ts';
import { formToken, interactionGone, isFormToken, isLocalPath, seeOther } from './browser-responses.ts';
import { consentNeeded } from './consent-needed.ts';
import { readCookie, SESSION_COOKIE } from './cookies.ts';

export interface ConsentRequest {
  interactionId: string;
  headers: Record<string, string | undefined>;
  /** Where the request came from: `consent.granted` carries it (docs/events.md). */
  origin?: EventOrigin;
}

export interface ConsentForm {
  csrf_token?: unknown;
  decision?: unknown;
}

/** What the OIDC scopes let a client see, in the words of the page. */
const OIDC_SCOPE_TEXT: Readonly<Record<string, string>> = {
  openid: 'Know who you are',
  profile: 'See your name and profile',
  email: 'See your email address',
  address: 'See your postal address',
  phone: 'See your phone number',
  offline_access: 'Stay connected when you are not using it',
};

type Checked = { interaction: InteractionRecord; session: SessionRecord } | { response: HttpResponse };

/**
 * The interaction, and the session that logged in for it: the request's session cookie must
 * resolve to `interaction.session_id`, so another browser (or another login in this one) can
 * neither see nor answer this consent. Nobody logged in yet: back to the login page.
 */
async function checkSession(req: ConsentRequest, deps: BrowserDeps): Promise<Checked> {
  const interaction = await deps.interactions.readInteraction(req.interactionId);
  if (!interaction) return { response: interactionGone() };
  if (!interaction.session_id) return { response: seeOther(`${deps.issuer}/login?interaction=${encodeURIComponent(interaction.id)}`) };
  const cookie = readCookie(req.headers, SESSION_COOKIE);
  const session = cookie ? await deps.sessions.findSession(cookie) : undefined;
  if (!session || session.id !== interaction.session_id) {
    return {
      response: errorPage(
        400,
        'Sign-in not recognised',
        'This request was started in another browser or by another sign-in. Go back to the application and start again.',
      ),
    };
  }
  return { interaction, session };
}

const returnTo = (deps: BrowserDeps, interaction: InteractionRecord): HttpResponse => {
  // Creators store a path of this service; anything else is a bug, never a redirect target.
  if (!isLocalPath(interaction.return_to)) throw new Error('interaction.return_to is not a local path');
  return seeOther(`${deps.issuer}${interaction.return_to}`);
};

/**
 * GET `/consent?interaction=` (docs/browser-flows.md "Consent"): when no consent is needed
 * (docs/contract.md §7.4: `consentNeeded`) the decision is recorded as allow with the requested scopes and
 * the browser goes on to `return_to`; otherwise the page shows the client and the scopes with the
 * two buttons `decision=allow|deny`.
 */
export async function showConsent(req: ConsentRequest, deps: BrowserDeps): Promise<HttpResponse> {
  const checked = await checkSession(req, deps);
  if ('response' in checked) return checked.response;
  const { interaction, session } = checked;
  // The account page's sign-in (docs/passkeys.md "The account page") has no client to consent to:
  // used up here, back to the page.
  if (interaction.kind === 'account') {
    const consumed = await deps.interactions.consumeInteraction(interaction.id);
    return consumed ? returnTo(deps, consumed) : interactionGone();
  }
  const [client, resource, grant] = await Promise.all([
    deps.getClient(interaction.client_id),
    interaction.resource_id ? deps.getResource(interaction.resource_id) : undefined,
    deps.consents.findConsent(session.user_id, interaction.client_id, interaction.resource_id),
  ]);
  if (!client || client.tenant_id !== interaction.tenant_id) return interactionGone();
  const ask = consentNeeded({ client, resource, grant, scopes: interaction.scopes, prompt: interaction.prompt });
  if (!ask) {
    const recorded = await deps.interactions.recordDecision(interaction.id, session.id, {
      decision: 'allow',
      granted_scopes: interaction.scopes,
    });
    return recorded ? returnTo(deps, recorded) : interactionGone();
  }
  const token = await formToken(deps.csrfKey, 'consent', interaction.id, session.id);
  const user = await deps.getUser(session.user_id);
  const who = user?.email ?? user?.username ?? user?.phone_number;
  const scopes = interaction.scopes.map(
    (s) => html`<li>${OIDC_SCOPE_TEXT[s] ?? html`<code>${s}</code>${resource ? html` on ${resource.resource_name}` : ''}`}</li>`,
  );
  // RFC 8628 §5.4: show the code the user typed, so that a code a phisher sent (for a device that
  // is not in front of the user) can be recognised before it is approved.
  const userCode = interaction.kind === 'device' ? interaction.payload?.user_code : undefined;
  return htmlPage({
    title: 'Allow access?',
    formActions: interaction.form_actions ?? [],
    body: html`<p><strong>${client.client_name}</strong> wants to:</p>
<ul>${scopes}</ul>
${typeof userCode === 'string' ? html`<p>Only allow this if your device shows the code <strong>${userCode}</strong>.</p>` : ''}
${who ? html`<p>You are signed in as <strong>${who}</strong>.</p>` : ''}
<form method="post">
<input type="hidden" name="csrf_token" value="${token}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  });
}

/**
 * POST `/consent?interaction=`: the session must match and the CSRF token (bound to the
 * interaction and the session) must be right, else a 400 page and nothing is written. `allow`
 * stores (or extends) the User Grant and records the decision; `deny` records it; then 303 to
 * `return_to`, where the creator answers (code, tokens, or `access_denied`).
 */
export async function submitConsent(req: ConsentRequest, form: ConsentForm, deps: BrowserDeps): Promise<HttpResponse> {
  const checked = await checkSession(req, deps);
  if ('response' in checked) return checked.response;
  const { interaction, session } = checked;
  // No consent form is ever shown for the account page's sign-in: nothing to record.
  if (interaction.kind === 'account') return interactionGone();
  if (!(await isFormToken(deps.csrfKey, form.csrf_token, 'consent', interaction.id, session.id))) {
    return errorPage(400, 'Form expired', 'This form could not be checked. Go back to the application and start again.');
  }
  if (form.decision !== 'allow' && form.decision !== 'deny') {
    return errorPage(400, 'Choose an answer', 'Choose Allow or Deny.');
  }
  if (form.decision === 'deny') {
    const recorded = await deps.interactions.recordDecision(interaction.id, session.id, { decision: 'deny' });
    return recorded ? returnTo(deps, recorded) : interactionGone();
  }
  // The event rides on the grant's write: it lands if and only if the grant is stored.
  const granted = newEvent('consent.granted', deps.now(), req.origin ?? {}, {
    tenant_id: interaction.tenant_id,
    client_id: interaction.client_id,
    user_id: session.user_id,
    details: { scopes: interaction.scopes, ...(interaction.resource_id ? { resource_id: interaction.resource_id } : {}) },
  });
  await deps.consents.saveConsent(
    {
      userId: session.user_id,
      tenantId: interaction.tenant_id,
      clientId: interaction.client_id,
      resourceId: interaction.resource_id ?? null,
      scopes: interaction.scopes,
    },
    [deps.events.fold(granted)],
  );
  const recorded = await deps.interactions.recordDecision(interaction.id, session.id, {
    decision: 'allow',
    granted_scopes: interaction.scopes,
  });
  return recorded ? returnTo(deps, recorded) : interactionGone();
}
