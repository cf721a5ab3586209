import * as v from 'valibot';
import { resumeDevice } from '#shared/browser/device-page.ts';
import { HOSTED_PAGE } from '#shared/html/hosted-page.ts';
import { html, redirect } from '#shared/http/response-spec.ts';
import { eventOrigin } from '#shared/records/event-record.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';
import { devicePageDeps } from '#shared/wiring/pages.ts';

const ResumeQuery = v.looseObject({ interaction: v.optional(v.unknown()) });

/** GET /device/resume?interaction= : where `/consent` sends the browser back (docs/browser-flows.md "Device flow"). */
export const handler = httpHandler(
  { page: HOSTED_PAGE, query: ResumeQuery, responses: { 200: html(), 303: redirect('To the consent or login page') } },
  async (req) =>
    resumeDevice(
      { headers: req.headers, sourceIp: req.sourceIp, origin: eventOrigin(req.requestId, req.sourceIp, req.headers['user-agent']) },
      req.query.interaction,
      devicePageDeps(req.runtime),
    ),
);
