import { lambdaContext as contextOf, proxyEvent, type ProxyEventSpec } from '../../infra/local/proxy-event.ts';

/** An API Gateway REST (v1) proxy event, built as the local server builds it (infra/local/proxy-event.ts). */
export const restEvent = (spec: ProxyEventSpec) => proxyEvent(spec, 'test');

export const lambdaContext = contextOf('test', 'test');
