/**
 * Several stages in one app (cdk.json `context.stages`, README "Deploy"): each synthesizes its own
 * stack with its own table, KMS keys, roles, API, alarms and WAF, nothing of one stage named or
 * referenced by another, and every stage deploys the same bundle of each function: one esbuild
 * run per function per synth (infra/bundling/function-bundles.ts), real bundling as `npm run synth`
 * does it. A small route table (health and token) keeps the bundling to a handful of functions.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#shared/routes/route-table.ts';
import { bundlesBuilt } from '../../infra/bundling/function-bundles.ts';
import { HEALTH_PATH, IdentityServiceStack } from '../../infra/constructs/identity-service-stack.ts';
import { parseStageConfig } from '../../infra/stages.ts';
import { allTemplates, cdkJson } from './support.ts';

type Json = Record<string, any>;

/** Names no other string of a template contains, so that finding one in another stage's template is a shared reference. */
const STAGES = ['tnt-amber', 'tnt-cobalt', 'tnt-violet'] as const;
const ROUTES_UNDER_TEST = ROUTES.filter((r) => r.path === HEALTH_PATH || r.path === '/token');

const outdir = mkdtempSync(join(tmpdir(), 'multi-stage-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

interface Synthesized {
  name: string;
  stack: IdentityServiceStack;
  /** The stage stack's template and its nested stacks' (API areas, monitoring). */
  templates: Template[];
}

let stages: Synthesized[];

beforeAll(() => {
  // cdk.json's context without `aws:cdk:bundling-stacks`: every stack is bundled, as `cdk synth` does.
  const app = new App({ outdir, context: cdkJson.context });
  const settings = [cdkJson.context.stages.dev, cdkJson.context.stages.prod, {}];
  const stacks = STAGES.map((name, i) => {
    // WAF on in all three, throwaway (dev-like) stage included, so that each must have its own web ACL.
    const stage = parseStageConfig(name, { ...settings[i], waf: { enabled: true } });
    const env = { account: '123456789012', region: 'eu-west-1' };
    return new IdentityServiceStack(app, `IdentityService-${name}`, { stage, env, routes: ROUTES_UNDER_TEST });
  });
  app.synth();
  stages = stacks.map((stack, i) => {
    const template = Template.fromStack(stack);
    return { name: STAGES[i]!, stack, templates: allTemplates({ stack, template }) };
  });
}, 600_000);

const resources = (s: Synthesized, type: string): Json[] => s.templates.flatMap((t) => Object.values(t.findResources(type)));
const json = (s: Synthesized) => s.templates.map((t) => JSON.stringify(t.toJSON())).join('\n');

describe('three stages in one app', () => {
  it.each([
    ['AWS::DynamoDB::GlobalTable', 1],
    ['AWS::ApiGateway::RestApi', 1],
    ['AWS::WAFv2::WebACL', 1],
    ['AWS::WAFv2::WebACLAssociation', 1],
  ])('each stage has exactly one %s of its own', (type, count) => {
    for (const s of stages) expect(resources(s, type), `${s.name} ${type}`).toHaveLength(count);
  });

  it('each stage has its own KMS keys, IAM roles, function log group, alarm topic and alarms', () => {
    for (const s of stages) {
      expect(resources(s, 'AWS::KMS::Key').length, s.name).toBeGreaterThanOrEqual(1);
      expect(resources(s, 'AWS::IAM::Role').length, s.name).toBeGreaterThanOrEqual(3);
      expect(resources(s, 'AWS::Logs::LogGroup').length, s.name).toBeGreaterThanOrEqual(1);
      expect(resources(s, 'AWS::SNS::Topic'), s.name).toHaveLength(1);
      expect(resources(s, 'AWS::CloudWatch::Alarm').length, s.name).toBeGreaterThanOrEqual(5);
    }
  });

  it('no stage names, references or imports another: no other stage name, stack name, export or Fn::ImportValue', () => {
    for (const s of stages) {
      const text = json(s);
      expect(text).toContain(s.name);
      for (const other of STAGES.filter((n) => n !== s.name)) expect(text, `${s.name} mentions ${other}`).not.toContain(other);
      expect(text).not.toContain('Fn::ImportValue');
      const outputs = s.templates.flatMap((t) => Object.values((t.toJSON().Outputs ?? {}) as Record<string, Json>));
      expect(outputs.filter((o) => o.Export !== undefined)).toEqual([]);
    }
  });

  it('physical names, where a resource sets one, are the stage own: tables, keys, aliases, roles, secrets, APIs, alarms, ACLs', () => {
    const nameProps: Record<string, string> = {
      'AWS::DynamoDB::GlobalTable': 'TableName',
      'AWS::KMS::Alias': 'AliasName',
      'AWS::IAM::Role': 'RoleName',
      'AWS::SecretsManager::Secret': 'Name',
      'AWS::ApiGateway::RestApi': 'Name',
      'AWS::CloudWatch::Alarm': 'AlarmName',
      'AWS::WAFv2::WebACL': 'Name',
      'AWS::Logs::LogGroup': 'LogGroupName',
      'AWS::SNS::Topic': 'TopicName',
    };
    const owner = new Map<string, string>();
    for (const s of stages) {
      for (const [type, prop] of Object.entries(nameProps)) {
        for (const r of resources(s, type)) {
          const name = r.Properties?.[prop];
          if (name === undefined) continue;
          // A name CloudFormation composes from the stage's own resources is the stage's own too.
          const key = JSON.stringify(name);
          expect(owner.get(key), `${type} ${key} in ${s.name} and ${owner.get(key)}`).toBeUndefined();
          owner.set(key, s.name);
        }
      }
    }
  });

  it('every stage deploys the same code asset for each function: one bundle per function per synth', () => {
    const codeOf = (s: Synthesized) =>
      new Map(resources(s, 'AWS::Lambda::Function').map((f) => [f.Properties.Description as string, f.Properties.Code.S3Key as string]));
    const [first, ...others] = stages.map(codeOf);
    expect([...first!.keys()]).toEqual(
      expect.arrayContaining(['functions/health/get-health', 'functions/oauth/token', 'functions/http/fallback']),
    );
    for (const key of first!.values()) expect(key).toMatch(/^[0-9a-f]{64}\.zip$/);
    for (const other of others) expect(Object.fromEntries(other)).toEqual(Object.fromEntries(first!));
    // One staged directory per distinct function bundle in the cloud assembly, not one per stage.
    const staged = readdirSync(outdir).filter((d) => d.startsWith('asset.'));
    for (const key of new Set(first!.values())) expect(staged).toContain(`asset.${key.replace(/\.zip$/, '')}`);
    const functionAssets = new Set(stages.flatMap((s) => [...codeOf(s).values()]));
    expect(functionAssets.size).toBe(new Set(first!.values()).size);
    // and esbuild ran once for each: the same hash is not three identical builds.
    expect(bundlesBuilt()).toBe(functionAssets.size);
  });
});
