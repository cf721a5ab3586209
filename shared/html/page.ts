import { createHash } from 'node:crypto';
import type { HttpResponse } from '../http/response.ts';
import { html, type SafeHtml, trusted } from './html.ts';

/**
 * The one stylesheet of the hosted pages, inline and allowed by its hash in the CSP, so the
 * pages need no other request and `style-src` admits nothing else.
 */
const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}form{margin-top:1.5rem}label{display:block;margin:.5rem 0}
input{font:inherit;width:100%;box-sizing:border-box;padding:.5rem;margin-bottom:.5rem}
button{font:inherit;padding:.5rem 1.2rem;margin:.5rem .5rem 0 0;cursor:pointer}.error{color:#a40000}`;

const STYLE_TRUSTED = trusted(STYLE);
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/**
 * The one script a page may carry (`autoSubmit`): it submits the page's form, for OAuth 2.0 Form
 * Post Response Mode §2. A constant allowed by its hash, so no request value can become script.
 */
const AUTO_SUBMIT = 'document.forms[0].submit()';
const AUTO_SUBMIT_HASH = `'sha256-${createHash('sha256').update(AUTO_SUBMIT).digest('base64')}'`;

/**
 * Another constant script a page may carry (the passkey ceremonies: shared/browser/passkeys/), allowed
 * by its hash like AUTO_SUBMIT. Built once from a module constant: no request value is ever part of it.
 */
export interface PageScript {
  readonly source: SafeHtml;
  /** The CSP source expression of `source`: `'sha256-…'`. */
  readonly hash: string;
}

export const pageScript = (source: string): PageScript =>
  Object.freeze({ source: trusted(source), hash: `'sha256-${createHash('sha256').update(source).digest('base64')}'` });

/**
 * The Content-Security-Policy of every hosted page (docs/contract.md §7.4): nothing loads but the inline
 * stylesheet (by hash): no script but the page's own constants (by hash), so the pages work
 * without JavaScript (passwords; a passkey needs it) and injected markup cannot run; forms post only to this origin (plus `formActions`: the origins a form's
 * answer may redirect to, since CSP3 `form-action` also governs those redirects); no framing
 * (clickjacking); no `<base>`.
 */
export function pageCsp(formActions: readonly string[] = [], autoSubmit = false, script?: PageScript): string {
  const scripts = [...(autoSubmit ? [AUTO_SUBMIT_HASH] : []), ...(script ? [script.hash] : [])];
  return [
    "default-src 'none'",
    `style-src ${STYLE_HASH}`,
    ...(scripts.length > 0 ? [`script-src ${scripts.join(' ')}`] : []),
    `form-action 'self'${formActions.map((o) => ` ${o}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export interface PageOptions {
  status?: number;
  title: string;
  body: SafeHtml;
  /** Origins a form of this page may be redirected to (see pageCsp). */
  formActions?: readonly string[];
  /** Submits the page's first form on load (the form still has its button for a browser without JavaScript). */
  autoSubmit?: boolean;
  /** A constant script of the page (see PageScript), e.g. the passkey ceremonies'. */
  script?: PageScript;
}

/**
 * A whole hosted page: HTML5, UTF-8, the page CSP, never cached (it may carry a CSRF token and
 * its URL a ticket) and no Referer to anywhere (the URL holds the ticket: the security headers'
 * `Referrer-Policy: no-referrer`).
 */
export function htmlPage({ status = 200, title, body, formActions = [], autoSubmit = false, script }: PageOptions): HttpResponse {
  const doc = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${STYLE_TRUSTED}</style>
</head>
<body>
<main>
<h1>${title}</h1>
${body}
</main>
${autoSubmit ? html`<script>${trusted(AUTO_SUBMIT)}</script>` : ''}
${script ? html`<script>${script.source}</script>` : ''}
</body>
</html>
`;
  return {
    statusCode: status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': pageCsp(formActions, autoSubmit, script),
      'Cache-Control': 'no-store',
      Pragma: 'no-cache',
    },
    body: doc.toString(),
  };
}

/** An error page (docs/contract.md §7.8: an HTML error is 400, or 404 for an unknown ticket; never a redirect). */
export function errorPage(status: number, title: string, message: string, headers: Record<string, string> = {}): HttpResponse {
  const page = htmlPage({ status, title, body: html`<p class="error" role="alert">${message}</p>` });
  return { ...page, headers: { ...headers, ...page.headers } };
}
