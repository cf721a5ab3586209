import { describe, expect, it, vi } from 'vitest';
import { ROUTES } from '#shared/routes/route-table.ts';
import { parseStageConfig, selectStages, stageEnv } from '../../infra/stages.ts';
import { cdkJson, synth, testApp } from './support.ts';

// Synthesizing a stack takes seconds, many more on a busy CI machine.
vi.setConfig({ testTimeout: 120_000 });

describe('stage config (cdk.json context.stages)', () => {
  it('cdk.json runs the app with tsx, never reports versions and shows no notices (offline synth)', () => {
    expect(cdkJson.app).toBe('npx tsx infra/app.ts');
    expect(cdkJson).toMatchObject({ notices: false, versionReporting: false });
    expect(cdkJson.context['cli-telemetry']).toBe(false);
  });

  it('every stage in cdk.json is valid; dev is destroyed on delete, prod retained', () => {
    const stages = selectStages(testApp());
    expect(stages.map((s) => s.name).sort()).toEqual(['dev', 'prod']);
    expect(stages.find((s) => s.name === 'dev')!.removalPolicy).toBe('destroy');
    expect(stages.find((s) => s.name === 'prod')!.removalPolicy).toBe('retain');
  });

  it('defaults: envelope keys, single tenant, 30-day logs, retained, daily rotation, 100/200 rps', () => {
    expect(parseStageConfig('qa', {})).toMatchObject({
      name: 'qa',
      keyMode: 'envelope',
      multiTenant: false,
      logRetentionDays: 30,
      removalPolicy: 'retain',
      rotationSchedule: 'rate(1 day)',
      throttle: { rateLimit: 100, burstLimit: 200 },
      alarms: { healthP99Ms: 1000, serverErrors: 0, throttled: 10, periodMinutes: 5 },
    });
  });

  it('-c stage=<name> selects one stage; an unknown one fails naming the known stages', () => {
    expect(selectStages(testApp({ stage: 'prod' })).map((s) => s.name)).toEqual(['prod']);
    expect(() => selectStages(testApp({ stage: 'qa' }))).toThrow('Unknown stage "qa" (-c stage=...). Known stages: dev, prod.');
  });

  it('a bad setting fails synth with every bad field named', () => {
    const bad = { throttle: { rateLimit: 20_000, burstLimit: 10 }, keyMode: 'hsm', logRetentionDays: 31, typo: true };
    let message = '';
    try {
      parseStageConfig('dev', bad);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^Invalid stage config "dev" \(cdk\.json context\.stages\.dev\):/);
    for (const field of ['throttle.rateLimit', 'keyMode', 'logRetentionDays', 'typo']) expect(message).toContain(`- ${field}:`);
  });

  it('rejects a non-https docs URL, a half-given hosted zone and a bad stage name', () => {
    expect(() => parseStageConfig('dev', { docsUrl: 'http://docs.example.com' })).toThrow(/docsUrl: must be an https:\/\/ URL/);
    expect(() =>
      parseStageConfig('dev', {
        customDomain: {
          domainName: 'id.example.com',
          certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/x',
          hostedZoneId: 'Z1',
        },
      }),
    ).toThrow(/hostedZoneId and hostedZoneName go together/);
    expect(() => parseStageConfig('Dev_1', {})).toThrow(/Invalid stage name/);
  });

  it('account and region: the stage own, else the CLI defaults', () => {
    const env = { CDK_DEFAULT_ACCOUNT: '111111111111', CDK_DEFAULT_REGION: 'us-east-1' };
    expect(stageEnv(parseStageConfig('dev', {}), env)).toEqual({ account: '111111111111', region: 'us-east-1' });
    expect(stageEnv(parseStageConfig('dev', { account: '222222222222', region: 'eu-central-1' }), env)).toEqual({
      account: '222222222222',
      region: 'eu-central-1',
    });
  });

  it('a custom domain becomes the issuer and gets a regional domain name, base path mapping and alias record', () => {
    const { template } = synth({
      settings: {
        customDomain: {
          domainName: 'id.example.com',
          certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
          hostedZoneId: 'Z123',
          hostedZoneName: 'example.com',
        },
      },
    });
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'id.example.com',
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    template.resourceCountIs('AWS::ApiGateway::BasePathMapping', 1);
    template.hasResourceProperties('AWS::Route53::RecordSet', { Name: 'id.example.com.', Type: 'A' });
    template.allResourcesProperties('AWS::Lambda::Function', { Environment: { Variables: { ISSUER: 'https://id.example.com' } } });
  });

  it('the issuer setting overrides both', () => {
    const { template } = synth({ settings: { issuer: 'https://login.example.com/' } });
    template.allResourcesProperties('AWS::Lambda::Function', { Environment: { Variables: { ISSUER: 'https://login.example.com' } } });
  });
});

describe('handler modules', () => {
  it('a route whose handler module does not exist fails synth naming the module', () => {
    const routes = [
      ...ROUTES,
      {
        method: 'GET',
        path: '/missing',
        handler: 'functions/missing/nothing-here',
        auth: { type: 'none' },
        access: { table: 'read', kms: [] },
      } as const,
    ];
    expect(() => synth({ routes, codeFor: null })).toThrow(
      /Handler module "functions\/missing\/nothing-here" not found: expected .*functions\/missing\/nothing-here\.ts exporting "handler"/,
    );
  });
});
