import { isAppError } from '../../errors.ts';
import type { HttpResponse } from '../../http/response.ts';
import { parseAttestation, verifyRegistration } from '../passkeys/ceremony.ts';
import { done, recentOrSignIn } from './account-actions.ts';
import type { AccountContext } from './account-context.ts';
import type { AccountDeps } from './account-deps.ts';
import { accountEvent } from './account-events.ts';
import type { AccountForm } from './account-forms.ts';
import { accountRegisterBinding } from './account-passkey-control.ts';
import { renderAccount, throughSignIn } from './account-session.ts';

const COULD_NOT = 'The passkey could not be added. Try again.';

/**
 * Add a passkey (docs/passkeys.md "The account page", "Registration"): a recent sign-in first
 * (else the sign-in again, and the page's ceremony afterwards); the credential verified against the
 * challenge of this session, browser and user, its challenge used once (passkeys/ceremony.ts),
 * with user verification required as for every passkey of the hosted pages; then stored through
 * the passkeys repository (409 at the cap or for a credential the user already has). The form
 * without a credential (the plain button of an old sign-in) only comes back to the page.
 */
export async function addPasskey(ctx: AccountContext, form: AccountForm, deps: AccountDeps): Promise<HttpResponse> {
  const refuse = (message: string, status = 400) => renderAccount(ctx, deps, { status, error: { section: 'passkeys', message } });
  if (deps.passkeyPolicy === 'off') return refuse('Passkeys are not offered here.');
  const again = await recentOrSignIn(ctx, deps);
  if (again) return again;
  if (form.credential === undefined || form.credential === '') return done(deps, 'passkey-ready');
  const credential = parseAttestation(form.credential);
  if (!credential) return refuse(COULD_NOT);
  const user = await deps.getUser(ctx.session.user_id);
  if (!user) return throughSignIn(deps, ctx.session.tenant_id);
  const verified = await verifyRegistration(
    { binding: accountRegisterBinding(ctx, user.id), state: form.state, credential, user, userVerification: 'required' },
    deps,
  );
  if ('failure' in verified) return refuse(verified.failure === 'expired' ? 'This took too long. Try again.' : COULD_NOT);
  try {
    await deps.passkeys.add(verified.passkey, (record) => [
      accountEvent(ctx, deps, 'authenticator.enrolled', { target: { type: 'authenticator', id: record.id }, details: { kind: 'passkey' } }),
    ]);
  } catch (err) {
    if (isAppError(err) && err.status === 409) return refuse(err.message, 409);
    if (isAppError(err) && err.status === 404) return throughSignIn(deps, ctx.session.tenant_id);
    throw err;
  }
  return done(deps, 'passkey-added');
}
