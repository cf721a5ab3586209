import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { parseStageConfig } from './stages.ts';

/**
 * `npm run bootstrap -- --stage <name> [--region <region>]`: runs the stage's bootstrap function
 * (functions/admin/bootstrap.ts) with `{"printCredentials": true}` and prints the Default Client's
 * id and, the first time only, its secret (docs/contract.md §4: "in AWS a one-off command prints them once").
 *
 * `... --rotate-default-secret`: the recovery path for a lost secret. Sends
 * `{"printCredentials": true, "rotateDefaultSecret": true}`; the function gives the Default Client a
 * new secret (the old one stops working) and this prints it once.
 *
 * Finds the function through the stack output `BootstrapFunctionName`. Needs AWS credentials
 * allowed `cloudformation:DescribeStacks` on the stack and `lambda:InvokeFunction` on the function.
 */

export const OUTPUT_FUNCTION = 'BootstrapFunctionName';
export const OUTPUT_ISSUER = 'Issuer';

/** A failure with a message meant for the operator (no stack trace). */
export class CliError extends Error {}

export interface StageTarget {
  stage: string;
  stackName: string;
  /** The stage's own region, else `--region`; else the SDK's usual lookup (AWS_REGION, profile). */
  region: string | undefined;
  /** `--rotate-default-secret`: replace the Default Client's secret and print the new one. */
  rotateDefaultSecret?: boolean;
}

export interface StageOutputs {
  functionName: string;
  issuer: string | undefined;
}

/** What the function returns (shared/bootstrap/run-bootstrap.ts `BootstrapOutput`). */
export interface BootstrapResult {
  created: boolean;
  clientId: string;
  clientSecret?: string;
  /** The secret was replaced by this run (`rotateDefaultSecret`). */
  rotated?: true;
}

/** What the function is sent (functions/admin/bootstrap.ts `BootstrapRequest`). */
export interface BootstrapRequest {
  printCredentials: true;
  rotateDefaultSecret?: true;
}

const USAGE = 'Usage: npm run bootstrap -- --stage <name> [--region <region>] [--rotate-default-secret]';

/** `--stage` must name a stage of cdk.json's `context.stages` (validated like `cdk synth` does). */
export function parseCliArgs(argv: readonly string[], stages: Record<string, unknown>): StageTarget {
  let values: { stage?: string | undefined; region?: string | undefined; 'rotate-default-secret'?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { stage: { type: 'string' }, region: { type: 'string' }, 'rotate-default-secret': { type: 'boolean' } },
      strict: true,
    }));
  } catch (err) {
    throw new CliError(`${(err as Error).message}\n${USAGE}`);
  }
  const stage = values.stage;
  if (!stage) throw new CliError(`--stage is required.\n${USAGE}`);
  if (!(stage in stages)) throw new CliError(`Unknown stage "${stage}". Known stages (cdk.json): ${Object.keys(stages).join(', ')}.`);
  const config = parseStageConfig(stage, stages[stage]);
  const target: StageTarget = { stage, stackName: `IdentityService-${stage}`, region: config.region ?? values.region };
  return values['rotate-default-secret'] ? { ...target, rotateDefaultSecret: true } : target;
}

export async function findStageOutputs(cfn: CloudFormationClient, stackName: string): Promise<StageOutputs> {
  let stack;
  try {
    stack = (await cfn.send(new DescribeStacksCommand({ StackName: stackName }))).Stacks?.[0];
  } catch (err) {
    const e = err as { name?: string; message?: string };
    if (e.name === 'ValidationError' && /does not exist/.test(e.message ?? '')) {
      throw new CliError(
        `Stack ${stackName} does not exist in this account and region. Deploy it first: npx cdk deploy -c stage=${stackName.replace(/^IdentityService-/, '')}`,
      );
    }
    throw new CliError(`Cannot read stack ${stackName}: ${e.name ?? 'Error'}: ${e.message ?? String(err)}`);
  }
  const output = (key: string) => stack?.Outputs?.find((o) => o.OutputKey === key)?.OutputValue;
  const functionName = output(OUTPUT_FUNCTION);
  if (!functionName) {
    throw new CliError(
      `Stack ${stackName} has no ${OUTPUT_FUNCTION} output (deployed before bootstrap existed, or still deploying). Deploy it again.`,
    );
  }
  return { functionName, issuer: output(OUTPUT_ISSUER) };
}

export async function invokeBootstrap(
  lambda: LambdaClient,
  functionName: string,
  request: BootstrapRequest = { printCredentials: true },
): Promise<BootstrapResult> {
  let res;
  try {
    res = await lambda.send(
      new InvokeCommand({
        FunctionName: functionName,
        InvocationType: 'RequestResponse',
        Payload: new TextEncoder().encode(JSON.stringify(request)),
      }),
    );
  } catch (err) {
    const e = err as { name?: string; message?: string };
    throw new CliError(`Cannot invoke ${functionName}: ${e.name ?? 'Error'}: ${e.message ?? String(err)}`);
  }
  const text = res.Payload ? Buffer.from(res.Payload).toString('utf8') : '';
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    payload = undefined;
  }
  if (res.FunctionError) {
    const p = payload as { errorType?: string; errorMessage?: string } | undefined;
    throw new CliError(
      `The bootstrap function failed: ${p?.errorType ?? res.FunctionError}: ${p?.errorMessage ?? text}\nIts log is in the stage's function log group (stream name contains ${functionName}).`,
    );
  }
  const refusal = payload as { error?: unknown; message?: unknown } | undefined;
  if (typeof refusal?.error === 'string') {
    throw new CliError(
      `The bootstrap function refused the request (${refusal.error}): ${typeof refusal.message === 'string' ? refusal.message : text.slice(0, 200)}`,
    );
  }
  const r = payload as Partial<BootstrapResult> | undefined;
  if (
    typeof r?.created !== 'boolean' ||
    typeof r.clientId !== 'string' ||
    (r.clientSecret !== undefined && typeof r.clientSecret !== 'string')
  ) {
    // Never echo an answer that may carry a secret.
    throw new CliError(`Unexpected answer from ${functionName}${typeof r?.clientSecret === 'string' ? '' : `: ${text.slice(0, 200)}`}`);
  }
  if (request.rotateDefaultSecret && (r.rotated !== true || !r.clientSecret)) {
    // A function deployed before --rotate-default-secret existed ignores the flag and rotates nothing.
    throw new CliError(
      `${functionName} did not rotate the Default Client's secret (its code predates --rotate-default-secret). The old secret is unchanged. Deploy the stage again, then rerun.`,
    );
  }
  return {
    created: r.created,
    clientId: r.clientId,
    ...(r.clientSecret ? { clientSecret: r.clientSecret } : {}),
    ...(r.rotated === true ? { rotated: true as const } : {}),
  };
}

/** The lines to print. The secret appears only when the function returned it (the first time). */
export function report(target: StageTarget, outputs: StageOutputs, result: BootstrapResult): string[] {
  const issuer = outputs.issuer ?? '<issuer>';
  const tokenCommand = `  curl -u '${result.clientId}:<secret>' -d grant_type=client_credentials -d audience=${issuer}/identity/v1/ ${issuer}/token`;
  if (result.rotated && result.clientSecret) {
    return [
      `Stage ${target.stage} (stack ${target.stackName}): Default Client secret rotated.`,
      `  Default Client id:     ${result.clientId}${result.created ? ' (created now)' : ''}`,
      `  New client secret:     ${result.clientSecret}`,
      '',
      'This is the only time the new secret is shown: store it now (a password manager, AWS Secrets Manager).',
      'The old secret no longer works: /token refuses it within RECORD_CACHE_TTL_SECONDS (default 1 s; its',
      'containers cache client records that long). Access tokens already issued with it stay valid until they expire.',
      'WARNING: update every script, pipeline and secret store that uses the old secret.',
      'A management token:',
      tokenCommand,
    ];
  }
  const lines = [
    `Stage ${target.stage} (stack ${target.stackName}): bootstrap done.`,
    `  Default Client id:     ${result.clientId}${result.created ? ' (created now)' : ''}`,
  ];
  if (result.clientSecret) {
    lines.push(
      `  Default Client secret: ${result.clientSecret}`,
      '',
      'This is the only time the secret is shown: store it now (a password manager, AWS Secrets Manager).',
      'A management token:',
      tokenCommand,
    );
  } else {
    lines.push(
      '',
      'The Default Client already exists and its secret has been shown before; it is never shown twice.',
      'To replace the secret, call the management API with a token that has update:client_keys:',
      `  POST ${issuer}/identity/v1/clients/${result.clientId}/secret`,
      'The answer carries the new secret; the old one stops working (at /token within RECORD_CACHE_TTL_SECONDS, default 1 s).',
      'Secret lost (no token to call that with)? Replace it from here, with the rights to invoke the bootstrap function:',
      `  npm run bootstrap -- --stage ${target.stage} --rotate-default-secret`,
    );
  }
  return lines;
}

export interface BootstrapStageDeps {
  cloudFormation: CloudFormationClient;
  lambda: LambdaClient;
}

export async function bootstrapStage(target: StageTarget, deps: BootstrapStageDeps): Promise<string[]> {
  const outputs = await findStageOutputs(deps.cloudFormation, target.stackName);
  const request: BootstrapRequest = target.rotateDefaultSecret
    ? { printCredentials: true, rotateDefaultSecret: true }
    : { printCredentials: true };
  const result = await invokeBootstrap(deps.lambda, outputs.functionName, request);
  return report(target, outputs, result);
}

async function main(): Promise<void> {
  const cdkJson = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')) as {
    context?: { stages?: Record<string, unknown> };
  };
  const target = parseCliArgs(process.argv.slice(2), cdkJson.context?.stages ?? {});
  const clientConfig = target.region ? { region: target.region } : {};
  const deps = { cloudFormation: new CloudFormationClient(clientConfig), lambda: new LambdaClient(clientConfig) };
  try {
    const lines = await bootstrapStage(target, deps);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    deps.cloudFormation.destroy();
    deps.lambda.destroy();
  }
}

if (import.meta.main) {
  main().catch((err: unknown) => {
    const message = err instanceof CliError ? err.message : `Bootstrap failed: ${(err as Error).message ?? String(err)}`;
    process.stderr.write(`${message}\n`);
    process.exitCode = 1;
  });
}
