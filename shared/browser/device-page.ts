import { html } from '../html/html.ts';
import { errorPage, htmlPage } from '../html/page.ts';
import type { HttpResponse } from '../http/response.ts';
import { attemptSource } from '../oauth/device/attempt-source.ts';
import type { EventLog } from '../ports/event-log.ts';
import { type EventOrigin, newEvent } from '../records/event-record.ts';
import { formatUserCode, normaliseUserCode } from '../records/user-code.ts';
import type { DeviceCodesRepository } from '../store/sessions/device-codes-repository.ts';
import type { InteractionsRepository } from '../store/sessions/interactions-repository.ts';
import type { SessionsRepository } from '../store/sessions/sessions-repository.ts';
import type { UserCodeAttemptsRepository } from '../store/sessions/user-code-attempts-repository.ts';
import { browserBinding, formToken, interactionGone, isFormToken, seeOther, withCookie } from './browser-responses.ts';
import { CSRF_COOKIE, readCookie, SESSION_COOKIE } from './cookies.ts';

/** What the `/device` page and `/device/resume` depend on (docs/design.md §3.2). */
export interface DevicePageDeps {
  /** Security events (docs/events.md): an approval or denial rides on the decision's write. */
  events: EventLog;
  deviceCodes: Pick<DeviceCodesRepository, 'findPendingByUserCode' | 'decide'>;
  attempts: UserCodeAttemptsRepository;
  interactions: Pick<InteractionsRepository, 'createInteraction' | 'readInteraction' | 'consumeInteraction'>;
  sessions: Pick<SessionsRepository, 'findSession'>;
  /** The hosted pages' CSRF key (`serviceSecret('hosted-pages')`). */
  csrfKey: () => Promise<Buffer>;
  issuer: string;
  secureCookies: boolean;
  now: () => Date;
}

export interface DevicePageRequest {
  headers: Record<string, string | undefined>;
  /** The caller's address (API Gateway `requestContext.identity.sourceIp`): the attempt limit counts by it, per /64 for IPv6 (attempt-source.ts). */
  sourceIp: string;
  /** Where the request came from: the decision's event carries it (docs/events.md). */
  origin?: EventOrigin;
}

/** The CSRF purpose of this page's form: a token of another page never passes here. */
const PURPOSE = 'device';

/** What a person typed is shown back at most this long (the field's own `maxlength`). */
const MAX_SHOWN = 64;

/** The user-code form; `problem` (with status 400 or 429) shows it again with the error above it. */
async function codeForm(
  req: DevicePageRequest,
  deps: DevicePageDeps,
  typed: string,
  problem?: { status: number; message: string; headers?: Record<string, string> },
): Promise<HttpResponse> {
  const binding = browserBinding(req.headers, deps.secureCookies);
  const token = await formToken(deps.csrfKey, PURPOSE, binding.value);
  const page = htmlPage({
    status: problem?.status ?? 200,
    title: 'Connect a device',
    body: html`${problem ? html`<p class="error" role="alert" id="user-code-error">${problem.message}</p>` : ''}
<p>Enter the code shown on your device.</p>
<form method="post" action="/device">
<input type="hidden" name="csrf_token" value="${token}">
<label for="user_code">Code</label>
<input id="user_code" name="user_code" value="${typed.slice(0, MAX_SHOWN)}" required maxlength="${MAX_SHOWN}" autocomplete="off" autocapitalize="characters" spellcheck="false"${problem ? html` aria-describedby="user-code-error" autofocus` : ''}>
<button type="submit">Continue</button>
</form>`,
  });
  return withCookie({ ...page, headers: { ...page.headers, ...problem?.headers } }, binding.setCookie);
}

/**
 * GET `/device` (RFC 8628 §3.3): the form. `?user_code=` (from `verification_uri_complete`,
 * §3.3.1) only pre-fills the field: nothing is looked up or counted until the user confirms, so
 * a link that was opened (or prefetched) does nothing by itself.
 */
export function showDevicePage(req: DevicePageRequest, userCode: unknown, deps: DevicePageDeps): Promise<HttpResponse> {
  return codeForm(req, deps, typeof userCode === 'string' ? userCode : '');
}

/**
 * POST `/device` (docs/contract.md §7.8): the CSRF token (bound to the browser's `csrf` cookie), then the
 * user code, BEFORE any login: a code that cannot be one of ours is an error on the page; a
 * well-formed one is counted against the source first (its IPv4 address or IPv6 /64,
 * attempt-source.ts; RFC 8628 §5.1: at most USER_CODE_ATTEMPT_LIMITS wrong codes per window,
 * then 429 with `Retry-After`), a right one gives its count back. A live, pending code starts the login: an Interaction `kind: 'device'`
 * whose consent is always asked (`prompt: consent`: RFC 8628 §5.4, the user must see which
 * client they are connecting), then 303 to `/login`.
 */
export async function submitDevicePage(
  req: DevicePageRequest,
  form: { csrf_token?: unknown; user_code?: unknown },
  deps: DevicePageDeps,
): Promise<HttpResponse> {
  const browser = readCookie(req.headers, CSRF_COOKIE);
  if (!browser || !(await isFormToken(deps.csrfKey, form.csrf_token, PURPOSE, browser))) {
    return errorPage(400, 'Form expired', 'This form could not be checked. Open the page again and enter the code there.');
  }
  const typed = typeof form.user_code === 'string' ? form.user_code : '';
  const userCode = normaliseUserCode(typed);
  const wrong = 'That code is not valid, or it has expired. Check the code on your device and try again.';
  if (!userCode) return codeForm(req, deps, typed, { status: 400, message: wrong });
  const source = attemptSource(req.sourceIp);
  const admission = await deps.attempts.admit(source);
  if (!admission.admitted) {
    return codeForm(req, deps, typed, {
      status: 429,
      message: 'Too many wrong codes. Wait a few minutes, then try again.',
      headers: { 'Retry-After': String(admission.retryAfterSeconds) },
    });
  }
  const device = await deps.deviceCodes.findPendingByUserCode(userCode);
  if (!device) return codeForm(req, deps, typed, { status: 400, message: wrong });
  await deps.attempts.refund(source);
  const interaction = await deps.interactions.createInteraction({
    kind: 'device',
    tenant_id: device.tenant_id,
    client_id: device.client_id,
    scopes: device.scopes,
    ...(device.resource_id !== undefined ? { resource_id: device.resource_id } : {}),
    prompt: ['consent'],
    return_to: '/device/resume?interaction={id}',
    payload: { device_hash: device.hash, user_code: formatUserCode(device.user_code) },
  });
  return seeOther(`${deps.issuer}/login?interaction=${encodeURIComponent(interaction.id)}`);
}

/**
 * GET `/device/resume?interaction=` (the plan's step 4): the interaction must be a device one
 * whose login was made by this browser's session (the `session` cookie resolves to its
 * `session_id`), with a decision from `/consent`; it is then consumed (once, even under races)
 * and the decision recorded on the device code (one conditional write: still pending, not
 * expired). The device's next poll gets its tokens or `access_denied`.
 */
export async function resumeDevice(req: DevicePageRequest, interactionId: unknown, deps: DevicePageDeps): Promise<HttpResponse> {
  const id = typeof interactionId === 'string' ? interactionId : '';
  const interaction = await deps.interactions.readInteraction(id);
  if (interaction?.kind !== 'device') return interactionGone();
  const cookie = readCookie(req.headers, SESSION_COOKIE);
  const session = cookie ? await deps.sessions.findSession(cookie) : undefined;
  // Checked before consuming: another browser cannot use the interaction up for its owner.
  if (!session || session.id !== interaction.session_id || !interaction.user_id || !interaction.decision) {
    return errorPage(
      400,
      'Sign-in not recognised',
      'This request was started in another browser or was not completed. Start again on your device.',
    );
  }
  const consumed = await deps.interactions.consumeInteraction(id);
  const hash = consumed?.payload.device_hash;
  if (!consumed || typeof hash !== 'string') return interactionGone();
  const allow = consumed.decision === 'allow';
  const grantedScopes = consumed.granted_scopes ?? [];
  // The event rides on the decision's write; it names neither the device code nor the user code.
  const decided = newEvent(allow ? 'device.approved' : 'device.denied', deps.now(), req.origin ?? {}, {
    tenant_id: consumed.tenant_id,
    client_id: consumed.client_id,
    user_id: consumed.user_id!,
    ...(allow ? { details: { scopes: grantedScopes } } : {}),
  });
  const recorded = await deps.deviceCodes.decide(
    hash,
    {
      decision: allow ? 'allow' : 'deny',
      userId: consumed.user_id!,
      authTime: consumed.auth_time ?? session.auth_time,
      amr: consumed.amr ?? session.amr,
      grantedScopes,
    },
    [deps.events.fold(decided)],
  );
  if (!recorded) return errorPage(400, 'Code expired', 'This code has expired or was already used. Start again on your device.');
  return allow
    ? htmlPage({ title: 'Device connected', body: html`<p>You may now return to your device.</p>` })
    : htmlPage({ title: 'Request denied', body: html`<p>The device was not connected. You may close this page.</p>` });
}
