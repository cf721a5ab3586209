import { describe, expect, it, vi } from 'vitest';
import { ROUTES } from '#shared/routes/route-table.ts';
import { parseStageConfig } from '../../infra/stages.ts';
import { actionsOf, functionIds, functionRole, roleStatements, synth } from './support.ts';

// Synthesizing a stack takes seconds, many more on a busy CI machine.
vi.setConfig({ testTimeout: 120_000 });

/**
 * Email and sign-up in the CDK app (docs/users.md "Registration and email"): only
 * the function that sends email may call SES, as the stage's sender only, and knows the sender;
 * `/token` and `/users/register` carry their own throttles.
 */
const SENDER = 'no-reply@id.example.com';
const IDENTITY = 'arn:aws:ses:eu-west-1:123456789012:identity/id.example.com';
const SENDING = ROUTES.filter((r) => r.access.email).map((r) => r.handler);

type Json = Record<string, any>;
const sesStatements = (template: ReturnType<typeof synth>['template'], handler: string) =>
  roleStatements(template, functionRole(template, handler)).filter((s) => actionsOf([s]).some((a) => a.startsWith('ses:')));
const environmentOf = (template: ReturnType<typeof synth>['template'], handler: string): Record<string, string> =>
  (template.toJSON().Resources[functionIds(template).get(handler)!].Properties as Json).Environment.Variables;

describe('SES only where email is sent', () => {
  const { template } = synth({ settings: { email: { from: SENDER, identityArn: IDENTITY } } });

  it('the route table names exactly one sending function: registration', () => {
    expect([...new Set(SENDING)]).toEqual(['functions/users/register']);
  });

  it('its role may ses:SendEmail on the stage identity, as the stage sender only', () => {
    expect(sesStatements(template, 'functions/users/register')).toEqual([
      { Action: 'ses:SendEmail', Effect: 'Allow', Resource: IDENTITY, Condition: { StringEquals: { 'ses:FromAddress': SENDER } } },
    ]);
    expect(environmentOf(template, 'functions/users/register')).toMatchObject({ EMAIL_FROM: SENDER, EMAIL_IDENTITY_ARN: IDENTITY });
  });

  it('no other function may call SES or knows the sender', () => {
    const others = [...functionIds(template).keys()].filter((h) => !SENDING.includes(h));
    expect(others.length).toBeGreaterThan(10);
    for (const handler of others) {
      expect(sesStatements(template, handler), handler).toEqual([]);
      expect(environmentOf(template, handler).EMAIL_FROM, handler).toBeUndefined();
    }
    // Nowhere in the template is there a wider SES grant.
    for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
      const actions = actionsOf((policy.Properties as Json).PolicyDocument.Statement);
      expect(actions.filter((a) => a.startsWith('ses:') && a !== 'ses:SendEmail')).toEqual([]);
    }
  });

  it('without an identity ARN the grant covers the account’s identities in the region, still only as the sender', () => {
    const { template: t } = synth({ settings: { email: { from: SENDER } } });
    const [statement] = sesStatements(t, 'functions/users/register');
    expect(JSON.stringify(statement!.Resource)).toContain(':ses:eu-west-1:123456789012:identity/*');
    expect((statement as unknown as Json).Condition).toEqual({ StringEquals: { 'ses:FromAddress': SENDER } });
    expect(environmentOf(t, 'functions/users/register').EMAIL_IDENTITY_ARN).toBeUndefined();
  });

  it('a stage without a sender grants SES to nobody (registration then answers 501)', () => {
    const { template: t } = synth();
    for (const handler of functionIds(t).keys()) expect(sesStatements(t, handler), handler).toEqual([]);
    expect(environmentOf(t, 'functions/users/register').EMAIL_FROM).toBeUndefined();
  });

  it('the stage config checks the sender and the identity ARN', () => {
    expect(() => parseStageConfig('x', { email: { from: 'not-an-address' } })).toThrow(/email\.from: must be an email address/);
    expect(() => parseStageConfig('x', { email: { from: SENDER, identityArn: 'arn:aws:kms:x' } })).toThrow(/email\.identityArn/);
    expect(() => parseStageConfig('x', { email: { from: SENDER, extra: 1 } })).toThrow(/email\.extra/);
    expect(parseStageConfig('x', { email: { from: SENDER } }).email).toEqual({ from: SENDER });
  });
});

describe('per-route throttles (docs/security.md "Rate limits")', () => {
  const { template } = synth();
  const stage = Object.values(template.findResources('AWS::ApiGateway::Stage'))[0]!.Properties as Json;
  it.each([
    ['POST', '/token', 2000, 4000],
    ['POST', '/identity/v1/users/register', 10, 20],
  ])('%s %s: %i rps, burst %i', (method, path, rate, burst) => {
    expect(stage.MethodSettings).toContainEqual(
      expect.objectContaining({
        ResourcePath: `/${path.replaceAll('/', '~1')}`,
        HttpMethod: method,
        ThrottlingRateLimit: rate,
        ThrottlingBurstLimit: burst,
      }),
    );
  });
});
