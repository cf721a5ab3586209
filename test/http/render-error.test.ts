import { describe, expect, it } from 'vitest';
import {
  AppError,
  badRequest,
  internalError,
  invalidClient,
  methodNotAllowed,
  notImplemented,
  serviceUnavailable,
} from '#shared/errors.ts';
import { renderError, toAppError } from '#shared/http/render-error.ts';

describe('error renderer (docs/contract.md §2)', () => {
  it('renders {code, message} with the docs link when configured', () => {
    const r = renderError(badRequest('body.client_name: required'), 'https://docs.example.com', false);
    expect(r.statusCode).toBe(400);
    expect(JSON.parse(r.body)).toEqual({
      code: 'invalid_request',
      message: 'body.client_name: required See https://docs.example.com/errors#invalid_request',
    });
  });

  it('adds RFC 6749 error members and no-store on OAuth endpoints', () => {
    const r = renderError(invalidClient(), undefined, true);
    expect(r.statusCode).toBe(401);
    expect(JSON.parse(r.body)).toEqual({
      code: 'invalid_client',
      message: 'Client authentication failed.',
      error: 'invalid_client',
      error_description: 'Client authentication failed.',
    });
    expect(r.headers['Cache-Control']).toBe('no-store');
    expect(r.headers['WWW-Authenticate']).toMatch(/^Basic /);
  });

  it('never shows the message or cause of an unexposed error', () => {
    const r = renderError(internalError({ cause: new Error('secret table name') }), undefined, false);
    expect(JSON.parse(r.body)).toEqual({ code: 'internal_error', message: 'Internal error.' });
    expect(r.body).not.toContain('secret');
  });

  it('501 and 503 show their own fixed message, never their cause; a function timeout says to retry, not "Internal error."', () => {
    const unavailable = renderError(
      serviceUnavailable({ cause: new Error('connect ECONNREFUSED 10.0.0.7:443 table-x') }),
      undefined,
      false,
    );
    expect(unavailable.statusCode).toBe(503);
    expect(JSON.parse(unavailable.body)).toEqual({ code: 'service_unavailable', message: 'A dependency is unavailable; retry later.' });
    expect(unavailable.body).not.toContain('ECONNREFUSED');
    const unsupported = renderError(notImplemented('SAML identity providers are not supported.'), undefined, true);
    expect(JSON.parse(unsupported.body)).toEqual({
      code: 'not_implemented',
      message: 'SAML identity providers are not supported.',
      error: 'not_implemented',
      error_description: 'SAML identity providers are not supported.',
    });
    // Any other 5xx stays hidden.
    expect(JSON.parse(renderError(new AppError(502, 'bad_gateway', 'upstream said x'), undefined, false).body).message).toBe(
      'Internal error.',
    );
  });

  it('sets Allow on 405 and Retry-After on 503', () => {
    expect(renderError(methodNotAllowed(['GET', 'POST']), undefined, false).headers.Allow).toBe('GET, POST');
    expect(renderError(serviceUnavailable(), undefined, false).headers['Retry-After']).toBe('1');
  });

  it('maps a malformed-JSON parser error to a 400 naming the body, and anything unknown to 500', () => {
    const parserError = Object.assign(new Error('Invalid or malformed JSON was provided'), { statusCode: 422, expose: true });
    expect(toAppError(parserError)).toMatchObject({ status: 400, code: 'invalid_request', message: 'body: malformed JSON.' });
    expect(toAppError(new TypeError('x is undefined'))).toMatchObject({ status: 500, code: 'internal_error', expose: false });
  });

  it('a JSON body with a "__proto__" member is a 400 naming that member, not "malformed JSON" (found by the management fuzz tests)', () => {
    const forbiddenKey = Object.assign(new Error('Forbidden key in JSON body'), {
      statusCode: 422,
      expose: true,
      cause: { package: '@middy/http-json-body-parser', data: '__proto__' },
    });
    expect(toAppError(forbiddenKey)).toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: 'body: a member named "__proto__" is not accepted.',
    });
  });
});
