import { describe, expect, it, vi } from 'vitest';
import { MAX_RESOURCES } from '../../infra/constructs/identity-service-stack.ts';
import { handlerModules, ROUTES, type Route } from '../../shared/routes.ts';
import { resourceCount, synth } from './support.ts';
import { syntheticRoutes } from './synthetic-routes.ts';

// Synthesizing a stack takes seconds, many more on a busy CI machine.
vi.setConfig({ testTimeout: 120_000 });

/** Prints the numbers so a CI log shows how much room is left. */
const report = (label: string, routes: number, handlers: number, count: number) =>
  console.info(`[resource budget] ${label}: ${routes} routes, ${handlers} handlers → ${count}/${MAX_RESOURCES} resources`);

describe('CloudFormation resource budget (500 per stack)', () => {
  it('the real stack is well under 500', () => {
    const { template } = synth({ stage: 'prod' });
    const count = resourceCount(template);
    report('ROUTES', ROUTES.length, handlerModules().length, count);
    expect(count).toBeLessThan(MAX_RESOURCES);
  });

  it('a synthetic table of 150 routes and 110 handlers still fits', () => {
    const routes = syntheticRoutes(150, 110);
    expect(routes).toHaveLength(150);
    expect(handlerModules(routes)).toHaveLength(110);
    // The worst stage: alarm topic, custom domain with DNS record, kms-sign key.
    const { template } = synth({
      stage: 'prod',
      routes,
      settings: {
        keyMode: 'kms-sign',
        alarms: { emails: ['ops@example.com'] },
        customDomain: {
          domainName: 'id.example.com',
          certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc-123',
          hostedZoneId: 'Z123456ABCDEFG',
          hostedZoneName: 'example.com',
        },
      },
    });
    const count = resourceCount(template);
    report('synthetic', routes.length, 110, count);
    expect(count).toBeLessThan(MAX_RESOURCES);
    // Per handler: the function only (shared roles, one invoke role, no Lambda permissions).
    expect(Object.keys(template.findResources('AWS::Lambda::Permission'))).toHaveLength(1);
  });

  it('synth fails with a clear message when a route table outgrows the stack', () => {
    const routes: Route[] = syntheticRoutes(150, 110);
    for (let i = 0; i < 120; i++) {
      routes.push({
        method: 'GET',
        path: `/big/r${i}`,
        handler: `functions/big/h${i}`,
        auth: { type: 'none' },
        access: { table: 'read', kms: [] },
      });
    }
    expect(() => synth({ routes })).toThrow(/resources: CloudFormation allows 500 per stack/);
  });
});
