import * as v from 'valibot';
import { showDevicePage, submitDevicePage } from '#shared/browser/device-page.ts';
import { HOSTED_PAGE } from '#shared/html/hosted-page.ts';
import { html, redirect } from '#shared/http/response-spec.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';
import { devicePageDeps } from '#shared/wiring/pages.ts';

/** A page is not an API: fields a browser adds are ignored, and the use case checks each value's type. */
const DeviceForm = v.optional(v.looseObject({ csrf_token: v.optional(v.unknown()), user_code: v.optional(v.unknown()) }), {});
/** `?user_code=` (RFC 8628 §3.3.1 `verification_uri_complete`) pre-fills the form. */
const DeviceQuery = v.looseObject({ user_code: v.optional(v.unknown()) });

/** GET, POST /device (docs/contract.md §5, §7.8; RFC 8628 §3.3): the user-code page. */
export const handler = httpHandler(
  {
    page: HOSTED_PAGE,
    body: DeviceForm,
    query: DeviceQuery,
    responses: { 200: html(), 303: redirect('To the login or consent page of the device’s interaction') },
  },
  async (req) => {
    const deps = devicePageDeps(req.runtime);
    const request = { headers: req.headers, sourceIp: req.sourceIp };
    return req.route.method === 'GET' ? showDevicePage(request, req.query.user_code, deps) : submitDevicePage(request, req.body, deps);
  },
);
