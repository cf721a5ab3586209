import { readFileSync } from 'node:fs';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { InvokeCommand, type InvokeCommandOutput, LambdaClient } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { bootstrapStage, CliError, parseCliArgs, type StageTarget } from '../../infra/bootstrap-stage.ts';

const STACK = 'IdentityService-dev';
const FUNCTION = 'IdentityService-dev-BootstrapFunctionD62F3ADB-AbCdEf123456';
const ISSUER = 'https://abc123.execute-api.eu-west-1.amazonaws.com/dev';
const CLIENT_ID = '01a200a4-973e-71f6-89fd-5266343ed17d';
const SECRET = 'kq3vJ0n3mY1c5b6Q1nF2m2rJ0n3mY1c5b6Q1nF2m2rA';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
/** The SDK hands back a Uint8Array subclass (a blob adapter); the script only reads the bytes. */
const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)) as InvokeCommandOutput['Payload'];
const target: StageTarget = { stage: 'dev', stackName: STACK, region: 'eu-west-1' };

describe('npm run bootstrap -- --stage <name> (infra/bootstrap-stage.ts)', () => {
  const cloudFormation = new CloudFormationClient({ region: 'eu-west-1', credentials });
  const lambda = new LambdaClient({ region: 'eu-west-1', credentials });
  const cfnMock = mockClient(cloudFormation);
  const lambdaMock = mockClient(lambda);
  const deps = { cloudFormation, lambda };

  const stackWithOutputs = (outputs: Record<string, string>) => {
    cfnMock.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: STACK,
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date('2026-03-01T10:00:00Z'),
          Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
        },
      ],
    });
  };

  beforeEach(() => {
    cfnMock.reset();
    lambdaMock.reset();
    stackWithOutputs({ BootstrapFunctionName: FUNCTION, Issuer: ISSUER, TableName: 'IdentityService-dev-DataTable' });
  });

  it('reads the function name from the stack output and invokes it synchronously with {"printCredentials": true}', async () => {
    lambdaMock
      .on(InvokeCommand)
      .resolves({ StatusCode: 200, Payload: encode({ created: true, clientId: CLIENT_ID, clientSecret: SECRET, signingKeys: [] }) });
    await bootstrapStage(target, deps);

    expect(cfnMock.calls()).toHaveLength(1);
    expect(cfnMock.commandCalls(DescribeStacksCommand)[0]!.args[0].input).toEqual({ StackName: STACK });
    expect(lambdaMock.calls()).toHaveLength(1);
    const invoke = lambdaMock.commandCalls(InvokeCommand)[0]!.args[0].input;
    expect({ ...invoke, Payload: JSON.parse(Buffer.from(invoke.Payload as Uint8Array).toString('utf8')) }).toEqual({
      FunctionName: FUNCTION,
      InvocationType: 'RequestResponse',
      Payload: { printCredentials: true },
    });
    // No LogType: Tail, so not even the function's log lines travel back.
    expect(invoke).not.toHaveProperty('LogType');
  });

  it('first run: prints the Default Client id and its secret once, with how to get a token', async () => {
    lambdaMock
      .on(InvokeCommand)
      .resolves({ StatusCode: 200, Payload: encode({ created: false, clientId: CLIENT_ID, clientSecret: SECRET, signingKeys: [] }) });
    const text = (await bootstrapStage(target, deps)).join('\n');
    expect(text).toContain(`Default Client id:     ${CLIENT_ID}`);
    expect(text).toContain(`Default Client secret: ${SECRET}`);
    expect(text).toContain('only time the secret is shown');
    expect(text).toContain(`-d audience=${ISSUER}/identity/v1/ ${ISSUER}/token`);
    // The curl line names a placeholder, not the secret again (shell history).
    expect(text.split(SECRET)).toHaveLength(2);
  });

  it('later runs: says the client exists and how to rotate its secret (POST .../clients/{id}/secret, update:client_keys)', async () => {
    lambdaMock.on(InvokeCommand).resolves({ StatusCode: 200, Payload: encode({ created: false, clientId: CLIENT_ID, signingKeys: [] }) });
    const text = (await bootstrapStage(target, deps)).join('\n');
    expect(text).toContain(`Default Client id:     ${CLIENT_ID}`);
    expect(text).not.toContain('Default Client secret:');
    expect(text).toContain('already exists');
    expect(text).toContain(`POST ${ISSUER}/identity/v1/clients/${CLIENT_ID}/secret`);
    expect(text).toContain('update:client_keys');
  });

  it('later runs also name the recovery command for a lost secret', async () => {
    lambdaMock.on(InvokeCommand).resolves({ StatusCode: 200, Payload: encode({ created: false, clientId: CLIENT_ID, signingKeys: [] }) });
    const text = (await bootstrapStage(target, deps)).join('\n');
    expect(text).toContain('npm run bootstrap -- --stage dev --rotate-default-secret');
  });

  describe('--rotate-default-secret', () => {
    const NEW_SECRET = 'Zx9pQ2wE4rT6yU8iO0pA1sD3fG5hJ7kL9zX1cV3bN5m';
    const rotating: StageTarget = { ...target, rotateDefaultSecret: true };
    const payloadOf = (input: { Payload?: unknown }) => JSON.parse(Buffer.from(input.Payload as Uint8Array).toString('utf8')) as unknown;

    it('invokes the function with exactly {"printCredentials": true, "rotateDefaultSecret": true}', async () => {
      lambdaMock.on(InvokeCommand).resolves({
        StatusCode: 200,
        Payload: encode({ created: false, clientId: CLIENT_ID, clientSecret: NEW_SECRET, rotated: true, signingKeys: [] }),
      });
      await bootstrapStage(rotating, deps);
      expect(lambdaMock.calls()).toHaveLength(1);
      const invoke = lambdaMock.commandCalls(InvokeCommand)[0]!.args[0].input;
      expect(Buffer.from(invoke.Payload as Uint8Array).toString('utf8')).toBe('{"printCredentials":true,"rotateDefaultSecret":true}');
      expect({ ...invoke, Payload: payloadOf(invoke) }).toEqual({
        FunctionName: FUNCTION,
        InvocationType: 'RequestResponse',
        Payload: { printCredentials: true, rotateDefaultSecret: true },
      });
      expect(invoke).not.toHaveProperty('LogType');
    });

    it('without the flag the payload stays {"printCredentials": true}', async () => {
      lambdaMock.on(InvokeCommand).resolves({ StatusCode: 200, Payload: encode({ created: false, clientId: CLIENT_ID, signingKeys: [] }) });
      await bootstrapStage(parseCliArgs(['--stage', 'dev'], { dev: {} }), deps);
      expect(payloadOf(lambdaMock.commandCalls(InvokeCommand)[0]!.args[0].input)).toEqual({ printCredentials: true });
    });

    it('prints the id and the new secret once, that the old one stops working (cache TTL), and to update every script', async () => {
      lambdaMock.on(InvokeCommand).resolves({
        StatusCode: 200,
        Payload: encode({ created: false, clientId: CLIENT_ID, clientSecret: NEW_SECRET, rotated: true, signingKeys: [] }),
      });
      const text = (await bootstrapStage(rotating, deps)).join('\n');
      expect(text).toContain('Default Client secret rotated');
      expect(text).toContain(`Default Client id:     ${CLIENT_ID}`);
      expect(text).toContain(`New client secret:     ${NEW_SECRET}`);
      expect(text.split(NEW_SECRET)).toHaveLength(2);
      expect(text).toContain('only time the new secret is shown');
      expect(text).toContain('The old secret no longer works');
      expect(text).toMatch(/RECORD_CACHE_TTL_SECONDS \(default 1 s/);
      expect(text).toMatch(/update every script, pipeline and secret store that uses the old secret/);
      expect(text).toContain(`-d audience=${ISSUER}/identity/v1/ ${ISSUER}/token`);
      expect(text).not.toContain('already exists');
    });

    it('a function that did not rotate (deployed before the flag existed) is an error, and its secret is not printed', async () => {
      lambdaMock.on(InvokeCommand).resolves({ StatusCode: 200, Payload: encode({ created: false, clientId: CLIENT_ID, signingKeys: [] }) });
      await expect(bootstrapStage(rotating, deps)).rejects.toThrow(
        /did not rotate the Default Client's secret .*The old secret is unchanged\. Deploy the stage again/,
      );
      lambdaMock
        .on(InvokeCommand)
        .resolves({ StatusCode: 200, Payload: encode({ created: false, clientId: CLIENT_ID, clientSecret: SECRET, signingKeys: [] }) });
      const err = await bootstrapStage(rotating, deps).catch((e: unknown) => e as Error);
      expect(err).toBeInstanceOf(CliError);
      expect((err as Error).message).not.toContain(SECRET);
    });

    it("a refused request: shows the function's message", async () => {
      lambdaMock.on(InvokeCommand).resolves({
        StatusCode: 200,
        Payload: encode({ error: 'invalid_request', message: 'Invalid bootstrap request: event.x: unknown field.' }),
      });
      await expect(bootstrapStage(rotating, deps)).rejects.toThrow(
        new CliError('The bootstrap function refused the request (invalid_request): Invalid bootstrap request: event.x: unknown field.'),
      );
    });
  });

  it('a stack that does not exist: tells to deploy first', async () => {
    cfnMock
      .on(DescribeStacksCommand)
      .rejects(Object.assign(new Error(`Stack with id ${STACK} does not exist`), { name: 'ValidationError' }));
    await expect(bootstrapStage(target, deps)).rejects.toThrow(
      new CliError(`Stack ${STACK} does not exist in this account and region. Deploy it first: npx cdk deploy -c stage=dev`),
    );
    expect(lambdaMock.calls()).toHaveLength(0);
  });

  it('a stack without the output (deployed before bootstrap existed): tells to deploy again', async () => {
    stackWithOutputs({ Issuer: ISSUER });
    await expect(bootstrapStage(target, deps)).rejects.toThrow(/has no BootstrapFunctionName output .*Deploy it again/);
    expect(lambdaMock.calls()).toHaveLength(0);
  });

  it('a function error: shows its type and message', async () => {
    lambdaMock.on(InvokeCommand).resolves({
      StatusCode: 200,
      FunctionError: 'Unhandled',
      Payload: encode({ errorType: 'ResourceNotFoundException', errorMessage: 'Requested resource not found', trace: [] }),
    });
    await expect(bootstrapStage(target, deps)).rejects.toThrow(
      /The bootstrap function failed: ResourceNotFoundException: Requested resource not found/,
    );
  });

  it('an answer of the wrong shape is refused rather than printed', async () => {
    lambdaMock.on(InvokeCommand).resolves({ StatusCode: 200, Payload: encode({ hello: 'world' }) });
    await expect(bootstrapStage(target, deps)).rejects.toThrow(/Unexpected answer/);
  });
});

describe('command line', () => {
  const stages = (
    JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: { stages: Record<string, unknown> } }
  ).context.stages;

  it('--stage names a cdk.json stage; its region wins, else --region, else the SDK default', () => {
    expect(parseCliArgs(['--stage', 'dev'], stages)).toEqual({ stage: 'dev', stackName: 'IdentityService-dev', region: undefined });
    expect(parseCliArgs(['--stage=prod', '--region', 'eu-central-1'], stages)).toEqual({
      stage: 'prod',
      stackName: 'IdentityService-prod',
      region: 'eu-central-1',
    });
    expect(parseCliArgs(['--stage', 'x'], { x: { region: 'eu-west-1' } }).region).toBe('eu-west-1');
  });

  it('--rotate-default-secret sets rotateDefaultSecret (and only then)', () => {
    expect(parseCliArgs(['--stage', 'dev', '--rotate-default-secret'], stages)).toEqual({
      stage: 'dev',
      stackName: 'IdentityService-dev',
      region: undefined,
      rotateDefaultSecret: true,
    });
    expect(parseCliArgs(['--stage', 'dev'], stages)).not.toHaveProperty('rotateDefaultSecret');
    expect(() => parseCliArgs(['--stage', 'dev', '--rotate-default-secret=yes'], stages)).toThrow(/Usage: .*--rotate-default-secret/);
  });

  it('refuses a missing or unknown stage and unknown options, with the usage', () => {
    expect(() => parseCliArgs([], stages)).toThrow(/--stage is required\.\nUsage: npm run bootstrap -- --stage <name>/);
    expect(() => parseCliArgs(['--stage', 'nope'], stages)).toThrow('Unknown stage "nope". Known stages (cdk.json): dev, prod.');
    expect(() => parseCliArgs(['--stage', 'dev', '--force'], stages)).toThrow(/Unknown option '--force'[\s\S]*Usage/);
  });
});
