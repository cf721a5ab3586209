import { describe, expect, it, vi } from 'vitest';
import { BOOTSTRAP_HANDLER } from '../../infra/constructs/stage-bootstrap.ts';
import { parseStageConfig } from '../../infra/stages.ts';
import { actionsOf, apiMethods, arnRef, functionIds, functionRole, roleStatements, synth } from './support.ts';

// Synthesizing a stack takes seconds, many more on a busy CI machine.
vi.setConfig({ testTimeout: 120_000 });

const CUSTOM_TYPE = 'Custom::IdentityServiceBootstrap';

const synthesized = synth({ stage: 'dev' });
const { template } = synthesized;
const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any>; DependsOn?: string[] }>;
const idsOf = (type: string) => Object.keys(template.findResources(type));
const [tableId] = idsOf('AWS::DynamoDB::GlobalTable');
const [wrapKeyId] = idsOf('AWS::KMS::Key');
const fnId = functionIds(template).get(BOOTSTRAP_HANDLER)!;
const [customId] = idsOf(CUSTOM_TYPE);
const roleId = functionRole(template, BOOTSTRAP_HANDLER);

describe('stage bootstrap in AWS (docs/contract.md §4, docs/deploy.md "Bootstrap")', () => {
  it('a function for functions/admin/bootstrap.ts with its own role, 2 minutes to run, not behind API Gateway', () => {
    expect(resources[fnId]).toMatchObject({ Type: 'AWS::Lambda::Function', Properties: { Timeout: 120 } });
    const invokedByApi = JSON.stringify(apiMethods(synthesized));
    expect(invokedByApi).not.toContain(`"${fnId}"`);
  });

  it('one custom resource whose service token is the function itself: no provider framework, no Lambda permission', () => {
    expect(idsOf(CUSTOM_TYPE)).toHaveLength(1);
    expect(resources[customId!]!.Properties.ServiceToken).toEqual({ 'Fn::GetAtt': [fnId, 'Arn'] });
    // CloudFormation gives up after 5 minutes instead of the default hour if no response comes.
    expect(resources[customId!]!.Properties.ServiceTimeout).toBe('300');
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission'));
    expect(JSON.stringify(permissions)).not.toContain(`"${fnId}"`);
    expect(idsOf('AWS::CloudFormation::CustomResource')).toEqual([]);
  });

  it('runs after the table, the wrap key and the role policy exist', () => {
    const dependsOn = resources[customId!]!.DependsOn ?? [];
    const rolePolicies = Object.entries(template.findResources('AWS::IAM::Policy'))
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .map(([id]) => id);
    expect(rolePolicies.length).toBeGreaterThan(0);
    expect(dependsOn).toEqual(expect.arrayContaining([tableId, wrapKeyId, roleId, ...rolePolicies]));
  });

  it('reruns when the function code or its configuration changes, and carries nothing else (never a secret)', () => {
    const props = resources[customId!]!.Properties;
    expect(Object.keys(props).sort()).toEqual(['CodeVersion', 'Environment', 'ServiceTimeout', 'ServiceToken']);
    expect(props.Environment).toEqual(resources[fnId]!.Properties.Environment.Variables);
    expect(props.Environment.TABLE_NAME).toEqual({ Ref: tableId });
    expect(typeof props.CodeVersion).toBe('string');
    // Deterministic: the same app synthesizes the same properties (cdk diff stays clean).
    const again = synth({ stage: 'dev' }).template.toJSON().Resources[customId!].Properties;
    expect(again).toEqual(props);
  });

  it('the API stage goes live only after bootstrap (first keys and the cursor secret exist before any request)', () => {
    const [stageId] = idsOf('AWS::ApiGateway::Stage');
    expect(resources[stageId!]!.DependsOn).toContain(customId);
  });

  it('deploy order is expand/contract: writers of the token copies, then bootstrap (reconcile), then the OAuth readers', () => {
    const fns = functionIds(template);
    const depends = (id: string) => resources[id]!.DependsOn ?? [];
    for (const reader of ['functions/oauth/token', 'functions/oauth/tokeninfo', 'functions/oauth/introspect', 'functions/oauth/revoke']) {
      expect(depends(fns.get(reader)!), reader).toContain(customId);
    }
    for (const writer of [
      'functions/clients/grant-client-permissions',
      'functions/clients/authorize-client-resources',
      'functions/resources/update-resource',
      'functions/resources/create-resource-scope',
    ]) {
      expect(depends(customId!), writer).toContain(fns.get(writer)!);
    }
  });

  it('outputs BootstrapFunctionName (what npm run bootstrap looks up) and DefaultClientId', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.BootstrapFunctionName!.Value).toEqual({ Ref: fnId });
    expect(outputs.DefaultClientId!.Value).toEqual({ 'Fn::GetAtt': [customId, 'DefaultClientId'] });
  });

  it('grants: table read/write without Scan; Decrypt, Encrypt, GenerateDataKeyPairWithoutPlaintext on the wrap key only', () => {
    const statements = roleStatements(template, roleId);
    const actions = actionsOf(statements);
    expect(actions).toEqual(
      expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']),
    );
    expect(actions).not.toContain('dynamodb:Scan');
    const kms = statements.filter((s) => actionsOf([s]).some((a) => a.startsWith('kms:')));
    expect(actionsOf(kms).sort()).toEqual(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKeyPairWithoutPlaintext']);
    expect(kms.map((s) => arnRef(s.Resource))).toEqual(kms.map(() => wrapKeyId));
  });

  it('kms-sign mode: also waits for the signing key and may read its public half (to register it)', () => {
    const { template: t } = synth({ settings: { keyMode: 'kms-sign' } });
    const keys = t.findResources('AWS::KMS::Key');
    const signingId = Object.keys(keys).find((k) => keys[k]!.Properties.KeySpec === 'ECC_NIST_P256')!;
    const [cr] = Object.values(t.findResources(CUSTOM_TYPE));
    expect(cr!.DependsOn).toContain(signingId);
    const onSigning = roleStatements(t, functionRole(t, BOOTSTRAP_HANDLER)).filter((s) => arnRef(s.Resource) === signingId);
    expect(actionsOf(onSigning)).toEqual(['kms:GetPublicKey']);
  });
});

describe('KEY_RETIRE_AFTER_SECONDS per stage (docs/keys.md)', () => {
  const retireOf = (t: typeof template) =>
    new Set(
      Object.values(t.findResources('AWS::Lambda::Function')).map((f) => f.Properties.Environment.Variables.KEY_RETIRE_AFTER_SECONDS),
    );

  it('defaults to 86400 in every function', () => {
    expect(parseStageConfig('qa', {}).keyRetireAfterSeconds).toBe(86_400);
    expect(retireOf(template)).toEqual(new Set(['86400']));
  });

  it('keyRetireAfterSeconds sets it in every function (signers, rotation and bootstrap agree)', () => {
    const { template: t } = synth({ settings: { keyRetireAfterSeconds: 172_800 } });
    expect(retireOf(t)).toEqual(new Set(['172800']));
  });

  it('is refused outside the range the functions accept (shared/config.ts: 60 s to 366 days)', () => {
    expect(() => parseStageConfig('dev', { keyRetireAfterSeconds: 30 })).toThrow(/- keyRetireAfterSeconds:/);
    expect(() => parseStageConfig('dev', { keyRetireAfterSeconds: 367 * 86_400 })).toThrow(/- keyRetireAfterSeconds:/);
    expect(() => parseStageConfig('dev', { keyRetireAfterSeconds: 3600.5 })).toThrow(/- keyRetireAfterSeconds:/);
  });
});
