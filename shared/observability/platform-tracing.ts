import { PLATFORM_TRACING, type Tracing } from './tracing.ts';

/**
 * What `#function-tracing` (package.json `imports`) resolves to unless the bundle says otherwise:
 * Lambda's own segment only, and no X-Ray SDK in the bundle. The functions traced with the SDK are
 * bundled with `#function-tracing` aliased to ./sdk-tracing.ts instead (infra/constructs/service-function.ts
 * `tracer`); locally and in tests there is no X-Ray, and this is what runs.
 */
export function functionTracing(_serviceName: string): Tracing {
  return PLATFORM_TRACING;
}
