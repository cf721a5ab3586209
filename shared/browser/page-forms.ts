import * as v from 'valibot';

/**
 * The request shapes of the hosted login, consent, logout and ticket pages. A page is not an API: a
 * field a browser or a password manager adds is ignored, and the use cases check each value's
 * type themselves (an unexpected one gets the page's own message, never a 500).
 */
const field = v.optional(v.unknown());

/** The interaction a login or consent page serves (a repeated parameter is a 400 page). */
export const InteractionQuery = v.looseObject({ interaction: v.optional(v.string()) });

/** The login page's: its provider links add the provider's name and their CSRF token (federated-login.ts). */
export const LoginQuery = v.looseObject({
  interaction: v.optional(v.string()),
  connection: v.optional(v.pipe(v.string(), v.maxLength(1024))),
  csrf_token: v.optional(v.pipe(v.string(), v.maxLength(256))),
});

/**
 * A provider's authorization response at `/login/callback` (RFC 6749 §4.1.2, §4.1.2.1; RFC 9207
 * `iss`), each value bounded; `error_description` and `error_uri` are accepted and never used.
 */
export const CallbackQuery = v.looseObject({
  state: v.optional(v.pipe(v.string(), v.maxLength(256))),
  code: v.optional(v.pipe(v.string(), v.maxLength(4096))),
  error: v.optional(v.pipe(v.string(), v.maxLength(256))),
  iss: v.optional(v.pipe(v.string(), v.maxLength(2048))),
});

export const LoginFormBody = v.optional(
  v.looseObject({
    csrf_token: field,
    username: field,
    password: field,
    otp: field,
    otp_state: field,
    // The passkey steps (passkeys/passkey-steps.ts); `credential` is bounded and parsed by passkeys/ceremony.ts.
    passkey: field,
    state: field,
    credential: field,
    step_state: field,
    passkey_offer: field,
  }),
  {},
);

export const ConsentFormBody = v.optional(v.looseObject({ csrf_token: field, decision: field }), {});

/** OIDC RP-Initiated Logout 1.0 §2 parameters (and the confirmation form's `csrf_token`). */
export const LogoutParams = v.optional(
  v.looseObject({ id_token_hint: field, post_logout_redirect_uri: field, state: field, client_id: field, csrf_token: field }),
  {},
);

/** The ticket page's forms (password, enrolment step, code). */
export const TicketFormBody = v.optional(v.looseObject({ csrf_token: field, password: field, code: field, enrolment: field }), {});

/** The ticket is opaque here: a value we never issued is an unknown ticket (the 404 page), not a 400. */
export const TicketPath = v.looseObject({ ticket: v.optional(v.string(), '') });
