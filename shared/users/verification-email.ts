import type { EmailMessage } from '../email/email-sender.ts';
import { html } from '../html/html.ts';

/**
 * The email-verification message of a registration (docs/contract.md §7.2). It holds the link and nothing
 * of the account beyond the address it goes to; the HTML part escapes what it interpolates like
 * every page does (shared/html/html.ts).
 */
export function verificationEmail(to: string, link: string, validDays: number): EmailMessage {
  const subject = 'Verify your email address';
  const text = `Hello,

Open this link to verify your email address:

${link}

The link works once and expires in ${validDays} days. If you did not sign up, ignore this message.
`;
  const body = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${subject}</title></head>
<body>
<p>Hello,</p>
<p><a href="${link}">Verify your email address</a></p>
<p>The link works once and expires in ${validDays} days. If you did not sign up, ignore this message.</p>
</body></html>
`;
  return { to, subject, text, html: body.toString() };
}
