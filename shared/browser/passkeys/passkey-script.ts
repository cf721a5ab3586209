import { type PageScript, pageScript } from '../../html/page.ts';

/**
 * The page script of the passkey ceremonies (W3C WebAuthn Level 3 §5.1.3, §5.1.4), ONE constant
 * allowed by its hash in the page's CSP (shared/html/page.ts `pageScript`): nothing of a request
 * ever becomes script. The options travel in the form's `data-options` attribute (escaped by the
 * html template like any attribute), not through a JSON endpoint: the page that shows the button
 * already holds the challenge, no fetch and no `connect-src` are needed.
 *
 * For each `form[data-passkey]` ("get" or "create"): the button (`hidden` in the markup, so a
 * browser without JavaScript shows no control that cannot work) is shown, and its click runs the
 * ceremony, puts the credential's JSON (`toJSON()`, or the same shape built by hand where a
 * browser lacks it) into the hidden `credential` field and submits the form. A
 * `form[data-passkey="get"][data-conditional]` also starts a conditional-mediation get on load
 * (WebAuthn §5.1.4.1: the passkey offered in the username field's autofill), which the button
 * aborts before its own modal get. An `input[data-passkey-platform]` gets the value `1` where the
 * device has a user-verifying platform authenticator (WebAuthn §5.1.7).
 */
const SOURCE = `(() => {
  'use strict';
  const PKC = window.PublicKeyCredential;
  if (!PKC || !navigator.credentials) return;
  const b64u = (buf) => {
    let s = '';
    for (const x of new Uint8Array(buf)) s += String.fromCharCode(x);
    return btoa(s).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  };
  const bytes = (s) =>
    Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4)), (c) => c.charCodeAt(0));
  const ids = (list) => (list || []).map((c) => ({ ...c, id: bytes(c.id) }));
  const creation = (o) =>
    PKC.parseCreationOptionsFromJSON
      ? PKC.parseCreationOptionsFromJSON(o)
      : { ...o, challenge: bytes(o.challenge), user: { ...o.user, id: bytes(o.user.id) }, excludeCredentials: ids(o.excludeCredentials) };
  const request = (o) =>
    PKC.parseRequestOptionsFromJSON ? PKC.parseRequestOptionsFromJSON(o) : { ...o, challenge: bytes(o.challenge), allowCredentials: ids(o.allowCredentials) };
  const toJSON = (c) => {
    if (typeof c.toJSON === 'function') return c.toJSON();
    const r = c.response;
    const out = { id: c.id, rawId: b64u(c.rawId), type: c.type, clientExtensionResults: c.getClientExtensionResults(), response: { clientDataJSON: b64u(r.clientDataJSON) } };
    if (c.authenticatorAttachment) out.authenticatorAttachment = c.authenticatorAttachment;
    if (r.attestationObject) {
      out.response.attestationObject = b64u(r.attestationObject);
      out.response.transports = r.getTransports ? r.getTransports() : [];
    } else {
      out.response.authenticatorData = b64u(r.authenticatorData);
      out.response.signature = b64u(r.signature);
      if (r.userHandle) out.response.userHandle = b64u(r.userHandle);
    }
    return out;
  };
  let pending;
  const run = async (form, mediation) => {
    if (pending) pending.abort();
    const ctl = new AbortController();
    pending = ctl;
    const error = form.querySelector('.passkey-error');
    try {
      const options = JSON.parse(form.dataset.options);
      const credential =
        form.dataset.passkey === 'create'
          ? await navigator.credentials.create({ publicKey: creation(options), signal: ctl.signal })
          : await navigator.credentials.get(mediation ? { publicKey: request(options), signal: ctl.signal, mediation } : { publicKey: request(options), signal: ctl.signal });
      if (!credential) return;
      form.elements.credential.value = JSON.stringify(toJSON(credential));
      form.submit();
    } catch {
      if (ctl.signal.aborted || !error) return;
      error.hidden = false;
      error.setAttribute('role', 'alert');
      error.textContent = 'The passkey was not used. Try again, or choose another way.';
    }
  };
  for (const form of document.querySelectorAll('form[data-passkey]')) {
    const button = form.querySelector('button[data-passkey-start]');
    if (!button) continue;
    button.hidden = false;
    button.addEventListener('click', (event) => {
      event.preventDefault();
      run(form);
    });
  }
  // A device that can create a passkey (a platform authenticator with user verification) says so
  // in the password form, so the page after the password offers one only where it can work.
  const offer = document.querySelector('input[data-passkey-platform]');
  if (offer && PKC.isUserVerifyingPlatformAuthenticatorAvailable) {
    PKC.isUserVerifyingPlatformAuthenticatorAvailable().then((ok) => { if (ok) offer.value = '1'; }, () => {});
  }
  const auto = document.querySelector('form[data-passkey="get"][data-conditional]');
  if (auto && PKC.isConditionalMediationAvailable) {
    PKC.isConditionalMediationAvailable().then((ok) => ok && run(auto, 'conditional'), () => {});
  }
})();`;

/** The `script` page option of every page with a passkey form (shared/html/page.ts `htmlPage`). */
export const PASSKEY_SCRIPT: PageScript = pageScript(SOURCE);
