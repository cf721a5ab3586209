import { describe, expect, it, vi } from 'vitest';
import { handlerModules, ROUTES } from '#shared/routes/route-table.ts';
import { FORWARD_EVENTS_HANDLER } from '../../infra/constructs/event-stream.ts';
import { GATEWAY_ERRORS } from '../../infra/constructs/gateway-responses.ts';
import { ROTATE_KEYS_HANDLER } from '../../infra/constructs/key-rotation.ts';
import { FALLBACK_HANDLER } from '../../infra/constructs/route-api.ts';
import { BOOTSTRAP_HANDLER } from '../../infra/constructs/stage-bootstrap.ts';
import { apiMethods, arnRef, functionIds, synth } from './support.ts';

// Synthesizing a stack takes seconds, many more on a busy CI machine.
vi.setConfig({ testTimeout: 120_000 });

const dev = synth({ stage: 'dev' });
const { template } = dev;
const methods = apiMethods(dev);
const fnIds = functionIds(template);
const fnOf = (method: { props: Record<string, any> }) => arnRef(method.props.Integration.Uri);

describe('REST API generated from the route table (docs/design.md §2)', () => {
  it.each(ROUTES.map((r) => [r.method, r.path, r.handler] as const))('%s %s → a proxy integration to %s', (method, path, handler) => {
    const found = methods.filter((m) => m.path === path && m.httpMethod === method);
    expect(found).toHaveLength(1);
    const integration = found[0]!.props.Integration;
    expect(integration.Type).toBe('AWS_PROXY');
    expect(integration.IntegrationHttpMethod).toBe('POST');
    expect(fnOf(found[0]!)).toBe(fnIds.get(handler));
    expect(found[0]!.props.AuthorizationType).toBe('NONE');
  });

  it('has no method the route table does not list, besides the ANY fallbacks and HEAD on each GET row', () => {
    const routed = methods.filter((m) => m.httpMethod !== 'ANY' && m.httpMethod !== 'HEAD').map((m) => `${m.httpMethod} ${m.path}`);
    expect(routed.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('RFC 9110 §9.3.2: HEAD on every GET row, to the function of that row, with its validator and path parameters', () => {
    const heads = methods.filter((m) => m.httpMethod === 'HEAD');
    const gets = ROUTES.filter((r) => r.method === 'GET');
    expect(heads.map((m) => m.path).sort()).toEqual(gets.map((r) => r.path).sort());
    for (const route of gets) {
      const head = heads.find((m) => m.path === route.path)!;
      const get = methods.find((m) => m.path === route.path && m.httpMethod === 'GET')!;
      expect(fnOf(head), route.path).toBe(fnIds.get(route.handler));
      expect(head.props.Integration.Type).toBe('AWS_PROXY');
      expect(head.props.RequestValidatorId).toEqual(get.props.RequestValidatorId);
      expect(head.props.RequestParameters).toEqual(get.props.RequestParameters);
    }
  });

  it('docs/contract.md §2: every route path, the root and /{proxy+} have ANY → the 404/405 fallback function', () => {
    const anyPaths = methods.filter((m) => m.httpMethod === 'ANY').map((m) => m.path);
    expect(anyPaths.sort()).toEqual([...new Set(ROUTES.map((r) => r.path)), '/', '/{proxy+}'].sort());
    for (const m of methods.filter((x) => x.httpMethod === 'ANY')) expect(fnOf(m)).toBe(fnIds.get(FALLBACK_HANDLER));
  });

  it('invokes functions through one credentials role, with no Lambda permission per method', () => {
    const credentials = new Set(methods.map((m) => arnRef(m.props.Integration.Credentials)));
    expect(credentials.size).toBe(1);
    const [roleId] = [...credentials];
    const role = template.toJSON().Resources[roleId!];
    expect(JSON.stringify(role.Properties.AssumeRolePolicyDocument)).toContain('apigateway.amazonaws.com');
    // The only permission is the rotation schedule's (EventBridge → function); CloudFormation
    // invokes the bootstrap custom resource with the deployer's credentials and needs none.
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission'));
    expect(permissions.map((p) => p.Properties.Principal)).toEqual(['events.amazonaws.com']);
  });
});

describe('functions', () => {
  const fns = template.findResources('AWS::Lambda::Function');

  it('one function per handler module, plus the fallback, the key rotation, the stage bootstrap and the event forwarder', () => {
    expect([...fnIds.keys()].sort()).toEqual(
      [...handlerModules(), FALLBACK_HANDLER, ROTATE_KEYS_HANDLER, BOOTSTRAP_HANDLER, FORWARD_EVENTS_HANDLER].sort(),
    );
    expect(Object.keys(fns)).toHaveLength(handlerModules().length + 4);
  });

  it('every function: Node.js 24 on arm64, JSON logs to one log group, the config env', () => {
    const logGroups = new Set<string>();
    for (const f of Object.values(fns)) {
      const p = f.Properties;
      expect(p.Runtime).toBe('nodejs24.x');
      expect(p.Architectures).toEqual(['arm64']);
      expect(p.Handler).toBe('index.handler');
      expect(p.LoggingConfig.LogFormat).toBe('JSON');
      logGroups.add(p.LoggingConfig.LogGroup.Ref);
      const env = p.Environment.Variables;
      expect(env).toMatchObject({
        TABLE_NAME: { Ref: expect.stringMatching(/^DataTable/) },
        ISSUER: { 'Fn::Join': expect.any(Array) },
        STAGE: 'dev',
        MULTI_TENANT: 'false',
        KEY_MODE: 'envelope',
        KMS_KEY_ID: { 'Fn::GetAtt': [expect.stringMatching(/^KeysWrapKey/), 'Arn'] },
        RECORD_CACHE_TTL_SECONDS: '1',
        KEY_RETIRE_AFTER_SECONDS: '86400',
        POWERTOOLS_SERVICE_NAME: 'identity-service',
        POWERTOOLS_LOG_LEVEL: 'DEBUG',
      });
      // No --enable-source-maps: parsing the map cost a third of the import (docs/benchmarks.md "Token function bundle").
      expect(env.NODE_OPTIONS).toBeUndefined();
      expect(env.STAGE).toBe('dev');
      expect(env.KMS_SIGNING_KEY_ID).toBeUndefined();
    }
    expect(logGroups.size).toBe(1);
  });

  it('ISSUER is the stage URL built from the API id (api.url would be a dependency cycle)', () => {
    const env = fns[fnIds.get('functions/oauth/token')!]!.Properties.Environment.Variables;
    const [apiId] = Object.keys(template.findResources('AWS::ApiGateway::RestApi'));
    expect(env.ISSUER).toEqual({
      'Fn::Join': ['', ['https://', { Ref: apiId }, '.execute-api.eu-west-1.', { Ref: 'AWS::URLSuffix' }, '/dev']],
    });
  });

  it('the token function gets 1024 MB, the others 512 (the fallback 256)', () => {
    const memory = (h: string) => fns[fnIds.get(h)!]!.Properties.MemorySize;
    expect(memory('functions/oauth/token')).toBe(1024);
    expect(memory('functions/oauth/jwks')).toBe(512);
    expect(memory(FALLBACK_HANDLER)).toBe(256);
  });
});

describe('gateway responses (docs/contract.md §2: gateway errors in the error shape, OAuth members included)', () => {
  it.each(GATEWAY_ERRORS.map((e) => [e.type.responseType, e] as const))('%s', (type, e) => {
    const [response] = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse', { Properties: { ResponseType: type } }));
    expect(response).toMatchObject({ Type: 'AWS::ApiGateway::GatewayResponse', Properties: { ResponseType: type } });
    const body = JSON.parse(response!.Properties.ResponseTemplates['application/json']);
    // One template per API for every route (no VTL in gateway responses), so the OAuth endpoints'
    // RFC 6749 members are on every route's: the same values.
    expect(Object.keys(body)).toEqual(['code', 'message', 'error', 'error_description']);
    expect(body.code).toBe(e.code);
    expect(body.error).toBe(e.code);
    expect(body.error_description).toBe(e.message);
    expect(response!.Properties.StatusCode).toBe(e.status);
    // docs/contract.md §8: gateway answers carry the same security headers as the functions' answers.
    expect(response!.Properties.ResponseParameters['gatewayresponse.header.X-Content-Type-Options']).toBe("'nosniff'");
    expect(response!.Properties.ResponseParameters['gatewayresponse.header.X-Frame-Options']).toBe("'DENY'");
    // each value is one quoted literal (a quote inside would break the mapping expression)
    for (const v of Object.values<string>(response!.Properties.ResponseParameters)) expect(v).toMatch(/^'[^']*'$/);
    expect(response!.Properties.ResponseParameters['gatewayresponse.header.Cache-Control']).toBe("'no-store'");
    // RFC 6749 §5.1 on /token's answers, errors included: the gateway's are on every route.
    expect(response!.Properties.ResponseParameters['gatewayresponse.header.Pragma']).toBe("'no-cache'");
  });

  it('unknown path → 404 not_found; throttles → 429 with Retry-After; too large → 413', () => {
    const byType = (t: string) =>
      Object.values(template.findResources('AWS::ApiGateway::GatewayResponse', { Properties: { ResponseType: t } }))[0]!.Properties;
    expect(byType('MISSING_AUTHENTICATION_TOKEN').StatusCode).toBe('404');
    for (const t of ['THROTTLED', 'QUOTA_EXCEEDED']) {
      expect(byType(t).StatusCode).toBe('429');
      expect(byType(t).ResponseParameters['gatewayresponse.header.Retry-After']).toMatch(/^'\d+'$/);
    }
    expect(byType('REQUEST_TOO_LARGE').StatusCode).toBe('413');
    expect(byType('ACCESS_DENIED').StatusCode).toBe('403');
    expect(byType('UNAUTHORIZED').StatusCode).toBe('401');
    // No status of our own: API Gateway's 4xx or 5xx passes through, in the error shape.
    for (const t of ['DEFAULT_4XX', 'DEFAULT_5XX']) expect(byType(t).StatusCode).toBeUndefined();
  });

  it('messages point at the docs when the stage has a docsUrl', () => {
    const { template: t } = synth({ settings: { docsUrl: 'https://docs.example.com/identity/' } });
    const [r] = Object.values(t.findResources('AWS::ApiGateway::GatewayResponse', { Properties: { ResponseType: 'THROTTLED' } }));
    expect(JSON.parse(r!.Properties.ResponseTemplates['application/json']).message).toBe(
      'Too many requests. See https://docs.example.com/identity/errors#too_many_requests',
    );
  });
});

describe('stage', () => {
  const stage = Object.values(template.findResources('AWS::ApiGateway::Stage'))[0]!.Properties;

  it('throttles every method by the stage default from cdk.json', () => {
    expect(stage.StageName).toBe('dev');
    expect(stage.MethodSettings).toContainEqual(
      expect.objectContaining({ ResourcePath: '/*', HttpMethod: '*', ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 }),
    );
  });

  // A GET row's HEAD method shares its throttle (infra/constructs/route-api.ts).
  it.each(
    ROUTES.filter((r) => r.throttle).flatMap((r) =>
      (r.method === 'GET' ? [r.method, 'HEAD'] : [r.method]).map((method) => [method, r.path, r.throttle!] as const),
    ),
  )('%s %s has its own throttle', (method, path, throttle) => {
    expect(stage.MethodSettings).toContainEqual(
      expect.objectContaining({
        ResourcePath: `/${path.replaceAll('/', '~1')}`,
        HttpMethod: method,
        ThrottlingRateLimit: throttle.rateLimit,
        ThrottlingBurstLimit: throttle.burstLimit,
      }),
    );
  });

  it('writes JSON access logs with the request id and status; execution logs at ERROR only, never bodies', () => {
    const format = JSON.parse(stage.AccessLogSetting.Format);
    expect(format.requestId).toBe('$context.requestId');
    expect(format.status).toBe('$context.status');
    expect(stage.AccessLogSetting.DestinationArn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^ApiAccessLogs/), 'Arn'] });
    // cdk-nag APIG6: execution logging on every method; ERROR level and no data trace keep bodies out.
    expect(stage.MethodSettings[0]).toMatchObject({ ResourcePath: '/*', HttpMethod: '*', LoggingLevel: 'ERROR', DataTraceEnabled: false });
  });

  it('owns the execution log group with the stage retention, created before the stage', () => {
    const [id, group] = Object.entries(template.findResources('AWS::Logs::LogGroup')).find(([k]) => k.startsWith('ApiExecutionLogs'))!;
    expect(JSON.stringify(group.Properties.LogGroupName)).toContain('API-Gateway-Execution-Logs_');
    expect(JSON.stringify(group.Properties.LogGroupName)).toContain('/dev');
    expect(group.Properties.RetentionInDays).toBe(7);
    const [stageRes] = Object.values(template.findResources('AWS::ApiGateway::Stage'));
    expect(stageRes!.DependsOn).toContain(id);
  });

  it("the account logging role has an inline policy on this account's log groups, no AWS managed policy", () => {
    const [id, role] = Object.entries(template.findResources('AWS::IAM::Role')).find(([k]) => k.startsWith('ApiAccountRole'))!;
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    const statement = role.Properties.Policies[0].PolicyDocument.Statement[0];
    expect(statement.Action).toContain('logs:PutLogEvents');
    expect(JSON.stringify(statement.Resource)).toContain(':log-group:*');
    expect(JSON.stringify(statement.Resource)).toContain('123456789012');
    template.hasResourceProperties('AWS::ApiGateway::Account', { CloudWatchRoleArn: { 'Fn::GetAtt': [id, 'Arn'] } });
    const { template: t } = synth({ settings: { apiGatewayAccountRole: false } });
    expect(Object.keys(t.findResources('AWS::ApiGateway::Account'))).toHaveLength(0);
  });

  it('one request validator (body and parameters); each route method uses it and declares its path parameters', () => {
    const [validatorId, validator] = Object.entries(template.findResources('AWS::ApiGateway::RequestValidator'))[0]!;
    expect(validator.Properties).toMatchObject({ ValidateRequestBody: true, ValidateRequestParameters: true });
    for (const m of methods.filter((x) => x.httpMethod !== 'ANY')) {
      expect(m.props.RequestValidatorId).toEqual({ Ref: validatorId });
      const params = [...m.path.matchAll(/\{([a-z_]+)\}/g)].map((x) => `method.request.path.${x[1]}`);
      expect(Object.keys(m.props.RequestParameters ?? {}).sort()).toEqual(params.sort());
      for (const p of params) expect(m.props.RequestParameters[p]).toBe(true);
    }
  });

  it('X-Ray tracing on the stage by default (test/infra/observability.test.ts checks the functions)', () => {
    expect(stage.TracingEnabled).toBe(true);
  });
});
