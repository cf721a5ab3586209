import * as v from 'valibot';

/**
 * The account page's request shapes. As on every hosted page (page-forms.ts) a field a browser or
 * a password manager adds is ignored and each value's type is checked by the use case, which
 * answers with the page's own message, never a 500.
 */
const field = v.optional(v.unknown());

/** `tenant`: where a signed-out browser signs in; `done`: which confirmation to show after an action. */
export const AccountQuery = v.looseObject({
  tenant: v.optional(v.pipe(v.string(), v.maxLength(128))),
  done: v.optional(v.pipe(v.string(), v.maxLength(32))),
});

/** Every action's form: `action` names it, `csrf_token` binds it to the session and the browser. */
export const AccountFormBody = v.optional(
  v.looseObject({
    csrf_token: field,
    action: field,
    passkey: field,
    grant: field,
    current_password: field,
    new_password: field,
    confirm_password: field,
    state: field,
    credential: field,
  }),
  {},
);

export interface AccountForm {
  csrf_token?: unknown;
  action?: unknown;
  passkey?: unknown;
  grant?: unknown;
  current_password?: unknown;
  new_password?: unknown;
  confirm_password?: unknown;
  /** Add a passkey: the ceremony's `{nonce}.{expiry}` and the credential's JSON (passkeys/ceremony.ts). */
  state?: unknown;
  credential?: unknown;
}
