import { randomBytes } from 'node:crypto';
import { csrfToken, isValidCsrfToken } from '../html/csrf.ts';
import { errorPage } from '../html/page.ts';
import type { HttpResponse } from '../http/response.ts';
import { CSRF_COOKIE, csrfCookie, readCookie } from './cookies.ts';

/** A 303 to a path of this service (POST-redirect-GET), with a cookie when one is set. */
export function seeOther(location: string, setCookie?: string): HttpResponse {
  return {
    statusCode: 303,
    headers: { Location: location, 'Cache-Control': 'no-store', ...(setCookie ? { 'Set-Cookie': setCookie } : {}) },
    body: '',
  };
}

/** The response with this Set-Cookie header added (one cookie per response is all the pages set). */
export const withCookie = (response: HttpResponse, setCookie: string | undefined): HttpResponse =>
  setCookie ? { ...response, headers: { ...response.headers, 'Set-Cookie': setCookie } } : response;

/**
 * A `return_to` may only be a path of this service: it is written by our own creators, and this
 * check keeps a bug there from ever turning the pages into an open redirect.
 */
export const isLocalPath = (path: string): boolean => /^\/(?![/\\])[^\\\s]*$/.test(path);

/** The interaction is unknown, expired, or was already used: nothing to continue (docs/contract.md §7.8: a 400 page). */
export const interactionGone = (): HttpResponse =>
  errorPage(
    400,
    'Sign-in expired',
    'This sign-in request has expired or was already completed. Go back to the application and start again.',
  );

/**
 * The browser's CSRF binding: the value of its `csrf` cookie, or a new one (then `setCookie` must
 * go out with the page, so the form's token matches what the browser sends back).
 */
export function browserBinding(headers: Record<string, string | undefined>, secure: boolean): { value: string; setCookie?: string } {
  const value = readCookie(headers, CSRF_COOKIE);
  if (value && /^[A-Za-z0-9_-]{43}$/.test(value)) return { value };
  const fresh = randomBytes(32).toString('base64url');
  return { value: fresh, setCookie: csrfCookie(fresh, secure) };
}

/** The `csrf_token` of a form: HMAC of its purpose and what it is bound to, under the hosted pages' key. */
export const formToken = async (key: () => Promise<Buffer>, purpose: string, ...binding: string[]): Promise<string> =>
  csrfToken(await key(), purpose, binding.join('\u0000'));

export const isFormToken = async (
  key: () => Promise<Buffer>,
  presented: unknown,
  purpose: string,
  ...binding: string[]
): Promise<boolean> => isValidCsrfToken(await key(), purpose, binding.join('\u0000'), presented);
