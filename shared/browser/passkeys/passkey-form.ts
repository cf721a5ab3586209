import { html, type SafeHtml } from '../../html/html.ts';

/**
 * A form that runs a passkey ceremony (passkey-script.ts): the options JSON in `data-options`
 * (attribute-escaped by `html`: a value from a request, such as a user's name, stays text), the
 * ceremony's `state`, the form's CSRF token and an empty `credential` the script fills. The button
 * is `hidden` until the script shows it: without JavaScript no passkey control is offered. The
 * error line gets `role="alert"` only when the script shows a message in it.
 * `fields` are further hidden fields (name, value) the step posts back.
 */
export function passkeyForm(input: {
  mode: 'get' | 'create';
  options: object;
  state: string;
  csrfToken: string;
  /** The visible label; it contains the word "passkey". */
  label: string;
  fields?: readonly (readonly [string, string])[];
  /** Also offer the passkey in the username field's autofill (conditional mediation, WebAuthn §5.1.4.1). */
  conditional?: boolean;
  /** The form's `action`, when not the page's own URL. */
  action?: string;
}): SafeHtml {
  const fields = (input.fields ?? []).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">\n`);
  return html`<form method="post" class="passkey"${input.action ? html` action="${input.action}"` : ''} data-passkey="${input.mode}"${input.conditional ? html` data-conditional` : ''} data-options="${JSON.stringify(input.options)}">
<input type="hidden" name="csrf_token" value="${input.csrfToken}">
<input type="hidden" name="state" value="${input.state}">
${fields}<input type="hidden" name="credential" value="">
<p class="error passkey-error" hidden></p>
<button type="button" data-passkey-start hidden>${input.label}</button>
</form>`;
}
