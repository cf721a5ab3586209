import { isAppError } from '../../errors.ts';
import type { HttpResponse } from '../../http/response.ts';
import { newEvent } from '../../records/event-record.ts';
import type { PasskeyRecord } from '../../records/passkey-record.ts';
import type { InteractionRecord } from '../../store/sessions/interactions-repository.ts';
import type { AuthMethod } from '../../store/sessions/sessions-repository.ts';
import type { BrowserDeps } from '../browser-deps.ts';
import { isFormToken } from '../browser-responses.ts';
import {
  completeLogin,
  type LoginForm,
  type LoginRequest,
  nowSeconds,
  PASSKEY_FAILED,
  passkeyAttempt,
  type Refused,
  STEP_EXPIRED,
  str,
} from '../login-attempts.ts';
import { addPasskeyForm, passwordForm, registerBinding, secondFactorBinding, secondFactorForm } from '../login-forms.ts';
import {
  amrOf,
  type CeremonyBinding,
  type CeremonyFailure,
  parseAssertion,
  parseAttestation,
  userIdOfHandle,
  useStateOnce,
  verifyRegistration,
} from './ceremony.ts';

// The passkey steps of the login page (docs/passkeys.md): sign in with a passkey, a passkey as the
// second factor, and "Add a passkey" after a password (or its "Not now").

/** A posted `step_state`: `{user id}.{expiry}` or, with `after`, `{user id}.{expiry}.{pwd|otp}`. */
function stepStateOf(raw: unknown, withAfter: boolean): { userId: string; expiry: string; after: 'pwd' | 'otp' } | undefined {
  const match = (withAfter ? /^([A-Za-z0-9-]{1,64})\.(\d{1,12})\.(pwd|otp)$/ : /^([A-Za-z0-9-]{1,64})\.(\d{1,12})$/).exec(str(raw));
  if (!match) return undefined;
  return { userId: match[1]!, expiry: match[2]!, after: match[3] === 'otp' ? 'otp' : 'pwd' };
}

/** What the second-factor page offers a user (after a refused passkey or code). */
async function offeredTo(userId: string, deps: BrowserDeps): Promise<{ totp: boolean; passkeys: PasskeyRecord[] }> {
  const [totp, passkeys] = await Promise.all([deps.login.login.otp.find(userId), deps.passkeys.list(userId)]);
  return { totp: totp !== undefined && (deps.passkeyPolicy !== 'required' || passkeys.length === 0), passkeys };
}

/**
 * POST of a passkey form: `sign-in` (passwordless), `second-factor` (after the password),
 * `register` or `skip` (the add-a-passkey page). Policy `off`: refused, whatever was posted.
 */
export async function passkeyStep(
  req: LoginRequest,
  interaction: InteractionRecord,
  form: LoginForm,
  binding: { value: string; setCookie?: string },
  deps: BrowserDeps,
): Promise<HttpResponse> {
  const step = str(form.passkey);
  if (deps.passkeyPolicy === 'off') {
    return passwordForm(req, interaction, deps, { status: 400, username: '', error: 'Sign in with your username and password.' });
  }
  // A browser without the csrf cookie cannot have been shown any of these forms.
  const browser = binding.setCookie === undefined ? binding.value : undefined;
  if (step === 'sign-in' && browser) return passkeySignIn(req, interaction, form, browser, deps);
  if (step === 'second-factor' && browser) return passkeySecondFactor(req, interaction, form, browser, deps);
  if ((step === 'register' || step === 'skip') && browser) return passkeyRegister(req, interaction, form, step, browser, deps);
  return passwordForm(req, interaction, deps, { status: 400, username: '', error: STEP_EXPIRED });
}

async function passkeySignIn(
  req: LoginRequest,
  interaction: InteractionRecord,
  form: LoginForm,
  browser: string,
  deps: BrowserDeps,
): Promise<HttpResponse> {
  const refuse = (status: number, error: string, headers?: Record<string, string>) =>
    passwordForm(req, interaction, deps, { status, username: '', error, ...(headers ? { headers } : {}) });
  if (!(await isFormToken(deps.csrfKey, form.csrf_token, 'login-passkey', interaction.id, browser))) return refuse(400, STEP_EXPIRED);
  const credential = parseAssertion(form.credential);
  const userId = userIdOfHandle(credential?.response.userHandle);
  if (!credential || !userId) return refuse(400, PASSKEY_FAILED);
  const binding: CeremonyBinding = { purpose: 'login', subject: interaction.id, browser };
  const outcome = await passkeyAttempt({ tenantId: interaction.tenant_id, userId }, binding, credential, form.state, 'required', deps, {
    req,
    interaction,
  });
  if (outcome.refused)
    return refuse(outcome.status, outcome.status === 429 ? outcome.refused.error : PASSKEY_FAILED, outcome.refused.headers);
  // A verified passkey is two factors in one (possession and the verification): RFC 8176 §2 `mfa`.
  return completeLogin(req, interaction, outcome.user, [outcome.amr, 'mfa'], deps, { method: 'passkey', recorded: true });
}

async function passkeySecondFactor(
  req: LoginRequest,
  interaction: InteractionRecord,
  form: LoginForm,
  browser: string,
  deps: BrowserDeps,
): Promise<HttpResponse> {
  const step = stepStateOf(form.step_state, false);
  const valid =
    step !== undefined &&
    Number(step.expiry) > nowSeconds(deps) &&
    (await isFormToken(deps.csrfKey, form.csrf_token, 'login-second-factor', interaction.id, browser, step.userId, step.expiry));
  if (!valid) return passwordForm(req, interaction, deps, { status: 400, username: '', error: STEP_EXPIRED });
  const { userId } = step;
  const credential = parseAssertion(form.credential);
  const outcome = credential
    ? await passkeyAttempt(
        { tenantId: interaction.tenant_id, userId },
        secondFactorBinding(interaction, browser, userId),
        credential,
        form.state,
        'preferred',
        deps,
        { req, interaction, secondFactor: true },
      )
    : ({ status: 400, refused: { error: PASSKEY_FAILED } } satisfies Refused as Refused);
  if (outcome.refused) {
    return secondFactorForm(
      interaction,
      userId,
      browser,
      deps,
      {
        status: outcome.status,
        error: outcome.status === 429 ? outcome.refused.error : 'The passkey could not be used. Try again.',
        ...(outcome.refused.headers ? { headers: outcome.refused.headers } : {}),
      },
      await offeredTo(userId, deps),
    );
  }
  return completeLogin(req, interaction, outcome.user, ['pwd', outcome.amr, 'mfa'], deps, { method: 'password', recorded: true });
}

async function passkeyRegister(
  req: LoginRequest,
  interaction: InteractionRecord,
  form: LoginForm,
  action: 'register' | 'skip',
  browser: string,
  deps: BrowserDeps,
): Promise<HttpResponse> {
  const step = stepStateOf(form.step_state, true);
  const valid =
    step !== undefined &&
    Number(step.expiry) > nowSeconds(deps) &&
    (await isFormToken(
      deps.csrfKey,
      form.csrf_token,
      'login-register',
      interaction.id,
      browser,
      step.userId,
      step.expiry,
      step.after,
      str(form.state),
    ));
  // The password step passed for this user; it is read again (consistent) for a block meanwhile.
  const user = valid ? await deps.getUser(step.userId) : undefined;
  if (!valid || !user || user.tenant_id !== interaction.tenant_id || user.blocked) {
    return passwordForm(req, interaction, deps, { status: 400, username: '', error: STEP_EXPIRED });
  }
  const before: AuthMethod[] = step.after === 'otp' ? ['pwd', 'otp'] : ['pwd'];
  if (action === 'skip') {
    if (deps.passkeyPolicy !== 'optional') {
      return addPasskeyForm(interaction, user, step.after, browser, deps, { status: 400, error: 'Add a passkey to continue.' });
    }
    if (!(await useStateOnce('login-register', form.state, deps))) {
      return passwordForm(req, interaction, deps, { status: 400, username: '', error: STEP_EXPIRED });
    }
    return completeLogin(req, interaction, user, step.after === 'otp' ? [...before, 'mfa'] : before, deps, {
      method: 'password',
      mfa: step.after === 'otp' ? 'otp' : undefined,
    });
  }
  const credential = parseAttestation(form.credential);
  const verified = credential
    ? await verifyRegistration(
        { binding: registerBinding(interaction, browser, user.id), state: form.state, credential, user, userVerification: 'required' },
        deps,
      )
    : ({ failure: 'invalid' } as const);
  if ('failure' in verified) {
    return addPasskeyForm(interaction, user, step.after, browser, deps, { status: 400, error: registrationFailure(verified.failure) });
  }
  try {
    // Enrolled during a sign-in: the same event as on the account page, on the add's own write.
    await deps.passkeys.add(verified.passkey, (record) => [
      deps.events.fold(
        newEvent('authenticator.enrolled', deps.now(), req.origin ?? {}, {
          tenant_id: user.tenant_id,
          ...(interaction.client_id ? { client_id: interaction.client_id } : {}),
          user_id: user.id,
          actor: { sub: user.id },
          target: { type: 'authenticator', id: record.id },
          details: { kind: 'passkey', via: 'login' },
        }),
      ),
    ]);
  } catch (err) {
    if (!isAppError(err) || (err.status !== 409 && err.status !== 404)) throw err;
    return addPasskeyForm(interaction, user, step.after, browser, deps, {
      status: 400,
      error: 'This passkey could not be added (it may be added already). Try another one.',
    });
  }
  // The new passkey was just used with user verification (required above): RFC 8176 §2 `mfa`.
  return completeLogin(req, interaction, user, [...before, amrOf(verified.passkey.device_type), 'mfa'], deps, {
    method: 'password',
    mfa: step.after === 'otp' ? 'otp' : undefined,
  });
}

const registrationFailure = (failure: CeremonyFailure) =>
  failure === 'expired' ? 'This page has expired. Try again.' : 'The passkey could not be added. Try again.';
