import type { Context } from 'aws-lambda';
import { lambdaContext as contextOf, type ProxyEventSpec, proxyEvent } from '../../../infra/local/proxy-event.ts';

/** An API Gateway REST (v1) proxy event, built as the local server builds it (infra/local/proxy-event.ts). */
export const restEvent = (spec: ProxyEventSpec) => proxyEvent(spec, 'test');

/**
 * One context shared by a test file's invocations, so its budget must not count down from import:
 * with `contextOf`'s deadline, every call made 30 s after the file loaded met middy's early
 * timeout and answered 500 (seen in a long fuzz run).
 */
export const lambdaContext: Context = { ...contextOf('test', 'test'), getRemainingTimeInMillis: () => 30_000 };
