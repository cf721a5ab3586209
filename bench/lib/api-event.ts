/**
 * Events and contexts come from infra/local/proxy-event.ts, the builder the local server uses, so
 * an in-process call runs exactly what a Lambda invocation runs.
 */
import { proxyEvent as buildEvent, lambdaContext as contextOf, type ProxyEventSpec } from '../../infra/local/proxy-event.ts';

export type EventSpec = ProxyEventSpec;

export const proxyEvent = (spec: EventSpec, stage = 'local') =>
  buildEvent({ ...spec, headers: { 'User-Agent': 'identity-bench', ...spec.headers } }, stage);

export const lambdaContext = (functionName: string, memoryMb = 1024) => contextOf(functionName, undefined, memoryMb);

export const basicAuth = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

export const FORM = 'application/x-www-form-urlencoded';
