import { describe, expect, it, vi } from 'vitest';
import type { Route } from '#shared/routes/route.ts';
import { handlerModules, ROUTES } from '#shared/routes/route-table.ts';
import { TABLE_INDEXES } from '#shared/store/core/table-definition.ts';
import {
  type AccessProfile,
  effectiveGrants,
  grantsName,
  NO_ACCESS,
  TABLE_READ_ACTIONS,
  TABLE_WRITE_ACTIONS,
  unionAccess,
} from '../../infra/constructs/access-roles.ts';
import { FORWARD_EVENTS_HANDLER } from '../../infra/constructs/event-stream.ts';
import { ROTATE_KEYS_HANDLER, ROTATION_ACCESS } from '../../infra/constructs/key-rotation.ts';
import { FALLBACK_HANDLER } from '../../infra/constructs/route-api.ts';
import { BOOTSTRAP_ACCESS, BOOTSTRAP_HANDLER } from '../../infra/constructs/stage-bootstrap.ts';
import { actionsOf, arnRef, functionIds, functionRole, roleStatements, type Statement, synth } from './support.ts';

// Synthesizing a stack takes seconds, many more on a busy CI machine.
vi.setConfig({ testTimeout: 120_000 });

const WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

const { template } = synth({ stage: 'dev' });
const idOf = (type: string) => Object.keys(template.findResources(type));
const [tableId] = idOf('AWS::DynamoDB::GlobalTable');
const [wrapKeyId] = idOf('AWS::KMS::Key');

const statementsOf = (handler: string) => roleStatements(template, functionRole(template, handler));
const onResource = (statements: Statement[], id: string) => statements.filter((s) => JSON.stringify(s.Resource).includes(`"${id}"`));

describe('least-privilege grants from the route table (docs/design.md §3.10)', () => {
  it.each(
    ROUTES.filter(
      (r) => r.access.table === 'read' && ROUTES.filter((o) => o.handler === r.handler).every((o) => o.access.table === 'read'),
    ).map((r) => [r.handler] as const),
  )('read-only %s can read the table and its indexes but not write', (handler) => {
    const table = onResource(statementsOf(handler), tableId!);
    const actions = actionsOf(table);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
    for (const w of WRITES) expect(actions).not.toContain(w);
    expect(actions.some((a) => a === 'dynamodb:*')).toBe(false);
    // Each GSI by name, never `index/*` (cdk-nag AwsSolutions-IAM5).
    for (const index of TABLE_INDEXES) expect(JSON.stringify(table)).toContain(`/index/${index.indexName}"`);
    expect(JSON.stringify(template.toJSON())).not.toContain('/index/*');
  });

  it('a writing route can write', () => {
    expect(actionsOf(statementsOf('functions/oauth/revoke'))).toEqual(expect.arrayContaining(WRITES));
  });

  it('routes without KMS access get no KMS action; decrypt-only routes get only Decrypt', () => {
    const kms = (h: string) => actionsOf(statementsOf(h)).filter((a) => a.startsWith('kms:'));
    expect(kms('functions/oauth/jwks')).toEqual([]);
    expect(kms('functions/clients/list-clients')).toEqual(['kms:Decrypt']);
    // HS256 tokens are verified with their Resource's secret, which opens with the data key.
    expect(kms('functions/oauth/introspect')).toEqual(['kms:Decrypt']);
    expect(kms('functions/oauth/tokeninfo')).toEqual(['kms:Decrypt']);
    expect(kms('functions/clients/create-client').sort()).toEqual(['kms:Decrypt', 'kms:Encrypt']);
  });

  it('envelope mode: the token function may only Decrypt, on the wrap key (bootstrap made the first key pairs at deploy)', () => {
    const kms = onResource(statementsOf('functions/oauth/token'), wrapKeyId!);
    expect(actionsOf(kms).sort()).toEqual(['kms:Decrypt']);
    expect(actionsOf(statementsOf('functions/oauth/token')).filter((a) => a.startsWith('kms:'))).toEqual(['kms:Decrypt']);
  });

  it('kms-sign mode: the token function may Sign with the signing key; read-only functions may not', () => {
    const { template: t } = synth({ settings: { keyMode: 'kms-sign' } });
    const keys = t.findResources('AWS::KMS::Key');
    const signingId = Object.keys(keys).find((k) => keys[k]!.Properties.KeySpec === 'ECC_NIST_P256')!;
    const statements = (h: string) => roleStatements(t, functionRole(t, h));
    expect(actionsOf(onResource(statements('functions/oauth/token'), signingId)).sort()).toEqual(['kms:GetPublicKey', 'kms:Sign']);
    expect(onResource(statements('functions/oauth/jwks'), signingId)).toEqual([]);
    const env = t.toJSON().Resources[functionIds(t).get('functions/oauth/token')!].Properties.Environment.Variables;
    expect(env.KMS_SIGNING_KEY_ID).toEqual({ 'Fn::GetAtt': [signingId, 'Arn'] });
    expect(env.KEY_MODE).toBe('kms-sign');
  });

  it('the fallback function touches neither the table nor KMS: its logs and its X-Ray segments only', () => {
    const actions = actionsOf(statementsOf(FALLBACK_HANDLER));
    expect(actions.sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents', 'xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
  });

  it('key rotation: table readwrite and GenerateDataKeyPairWithoutPlaintext; no Decrypt (rotation never opens a private key)', () => {
    const actions = actionsOf(statementsOf(ROTATE_KEYS_HANDLER));
    expect(actions).toEqual(expect.arrayContaining(WRITES));
    expect(actionsOf(onResource(statementsOf(ROTATE_KEYS_HANDLER), wrapKeyId!))).toEqual(['kms:GenerateDataKeyPairWithoutPlaintext']);
  });

  it('stage bootstrap: table readwrite, Decrypt, Encrypt and GenerateDataKeyPairWithoutPlaintext on the wrap key', () => {
    expect(actionsOf(statementsOf(BOOTSTRAP_HANDLER))).toEqual(expect.arrayContaining(WRITES));
    expect(actionsOf(onResource(statementsOf(BOOTSTRAP_HANDLER), wrapKeyId!)).sort()).toEqual([
      'kms:Decrypt',
      'kms:Encrypt',
      'kms:GenerateDataKeyPairWithoutPlaintext',
    ]);
  });

  it('docs/design.md §3.6: no function may Scan (or read streams), and the table grants name exactly the read and write actions', () => {
    const tableActions = new Set<string>();
    // The event forwarder reads the table's stream, and only it (test/infra/events.test.ts).
    const forwarderRole = functionRole(template, FORWARD_EVENTS_HANDLER);
    for (const [id, role] of Object.entries(template.findResources('AWS::IAM::Role'))) {
      if (!JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('lambda.amazonaws.com') || id === forwarderRole) continue;
      for (const a of actionsOf(roleStatements(template, id))) if (a.startsWith('dynamodb:')) tableActions.add(a);
    }
    expect(tableActions.has('dynamodb:Scan')).toBe(false);
    expect(
      [...tableActions].some(
        (a) => a.includes('*') || a.includes('Stream') || a === 'dynamodb:GetRecords' || a === 'dynamodb:GetShardIterator',
      ),
    ).toBe(false);
    expect([...tableActions].sort()).toEqual([...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS].sort());
  });

  it('functions write logs only to their own log group (no AWSLambdaBasicExecutionRole)', () => {
    for (const [id, role] of Object.entries(template.findResources('AWS::IAM::Role'))) {
      if (!JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('lambda.amazonaws.com')) continue;
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      const logs = roleStatements(template, id).filter((s) => actionsOf([s]).some((a) => a.startsWith('logs:')));
      expect(logs.map((s) => arnRef(s.Resource))).toEqual([
        Object.keys(template.findResources('AWS::Logs::LogGroup')).find((g) => g.startsWith('FunctionLogs')),
      ]);
    }
  });

  it('functions with the same grants share a role: one role per distinct set of grants', () => {
    const fnRoles = Object.values(template.findResources('AWS::Lambda::Function')).map((f) => arnRef(f.Properties.Role));
    const grantsOf = (a: AccessProfile) => grantsName(effectiveGrants(a, 'envelope'));
    const expected = new Set([
      ...handlerModules().map((h) => grantsOf(unionAccess(ROUTES.filter((r) => r.handler === h).map((r) => r.access)))),
      grantsOf(NO_ACCESS),
      grantsOf(ROTATION_ACCESS),
      grantsOf(BOOTSTRAP_ACCESS),
      'the event forwarder: its own role, no table access',
    ]);
    expect(new Set(fnRoles).size).toBe(expected.size);
    expect(expected.size).toBeLessThan(handlerModules().length);
  });

  it('API Gateway may invoke exactly the service functions', () => {
    const methodRole = arnRef(Object.values(template.findResources('AWS::ApiGateway::Method'))[0]!.Properties.Integration.Credentials)!;
    const invokable = roleStatements(template, methodRole).flatMap((s) => [s.Resource as unknown].flat().map(arnRef));
    const apiFunctions = [...functionIds(template)]
      .filter(([h]) => h !== ROTATE_KEYS_HANDLER && h !== BOOTSTRAP_HANDLER && h !== FORWARD_EVENTS_HANDLER)
      .map(([, id]) => id);
    expect(invokable.sort()).toEqual(apiFunctions.sort());
    expect(actionsOf(roleStatements(template, methodRole))).toEqual(expect.arrayContaining(['lambda:InvokeFunction']));
    expect(new Set(actionsOf(roleStatements(template, methodRole)))).toEqual(new Set(['lambda:InvokeFunction']));
  });
});

describe('a handler used by several routes gets the union of their access', () => {
  const shared = (method: Route['method'], access: Route['access']): Route => ({
    method,
    path: '/identity/v1/things',
    handler: 'functions/things/things',
    auth: { type: 'none' },
    access,
  });

  it('unionAccess takes the widest table access and every KMS operation', () => {
    expect(
      unionAccess([
        { table: 'read', kms: ['decrypt'] },
        { table: 'readwrite', kms: ['encrypt'] },
      ]),
    ).toEqual({
      table: 'readwrite',
      kms: ['decrypt', 'encrypt'],
    });
  });

  it('in the template', () => {
    const routes = [...ROUTES, shared('GET', { table: 'read', kms: [] }), shared('POST', { table: 'readwrite', kms: ['encrypt'] })];
    const { template: t } = synth({ routes });
    const actions = actionsOf(roleStatements(t, functionRole(t, 'functions/things/things')));
    expect(actions).toEqual(expect.arrayContaining([...WRITES, 'kms:Encrypt']));
  });
});
