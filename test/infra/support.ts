import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { IdentityServiceStack } from '../../infra/constructs/identity-service-stack.ts';
import { PROJECT_ROOT } from '../../infra/constructs/service-function.ts';
import { parseStageConfig } from '../../infra/stages.ts';
import type { Route } from '../../shared/routes.ts';

/** cdk.json as the CLI reads it. */
export const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
  app: string;
  context: { stages: Record<string, Record<string, unknown>> } & Record<string, unknown>;
};

/** An App with cdk.json's context; `aws:cdk:bundling-stacks: []` makes NodejsFunction skip esbuild. */
export function testApp(context: Record<string, unknown> = {}): App {
  return new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], ...context } });
}

/** Inline code for handler modules with no source (synthetic tables, modules not written yet). */
export const stubMissing = (handlerModule: string): lambda.Code | undefined =>
  existsSync(join(PROJECT_ROOT, `${handlerModule}.ts`)) ? undefined : lambda.Code.fromInline('export const handler = async () => ({});');

export interface SynthOptions {
  stage?: string;
  /** Merged over cdk.json's settings for the stage. */
  settings?: Record<string, unknown>;
  routes?: readonly Route[];
  /** @default stubMissing */
  codeFor?: ((handlerModule: string) => lambda.Code | undefined) | null;
}

export interface Synthesized {
  stack: IdentityServiceStack;
  template: Template;
  /** The nested stack with the alarms, their topic and the dashboard. */
  monitoring: Template;
}

export function synth(options: SynthOptions = {}): Synthesized {
  const name = options.stage ?? 'dev';
  const stage = parseStageConfig(name, { ...cdkJson.context.stages[name], ...options.settings });
  const stack = new IdentityServiceStack(testApp(), `IdentityService-${name}`, {
    stage,
    env: { account: '123456789012', region: 'eu-west-1' },
    ...(options.routes ? { routes: options.routes } : {}),
    ...(options.codeFor === null ? {} : { codeFor: options.codeFor ?? stubMissing }),
  });
  return { stack, template: Template.fromStack(stack), monitoring: Template.fromStack(stack.monitoring) };
}

/**
 * A nested stack's `{Ref: <parameter>}` as the parent passes it (the logical id of the parent's
 * resource it stands for, e.g. `{Ref: <function id>}`); anything else unchanged.
 */
export function fromParent(parent: Template, value: unknown): unknown {
  const ref = (value as { Ref?: string } | null)?.Ref;
  if (typeof ref !== 'string') return value;
  for (const nested of Object.values(parent.findResources('AWS::CloudFormation::Stack'))) {
    const passed = (nested.Properties as Json).Parameters?.[ref];
    if (passed !== undefined) return passed;
  }
  return value;
}

type Json = Record<string, any>;

export function resourceCount(template: Template): number {
  return Object.keys(template.toJSON().Resources).length;
}

/** Full resource path ('/a/{b}') of every AWS::ApiGateway::Resource, by logical id; the root is '/'. */
export function apiPaths(template: Template): Map<string, string> {
  const resources = template.findResources('AWS::ApiGateway::Resource');
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known) return known;
    const props = resources[id]!.Properties as Json;
    const parent = props.ParentId.Ref ? pathOf(props.ParentId.Ref) : '';
    const path = `${parent}/${props.PathPart}`;
    paths.set(id, path);
    return path;
  };
  Object.keys(resources).forEach(pathOf);
  return paths;
}

/** The first `Fn::GetAtt: [id, 'Arn']` inside a value (an integration URI, a role reference). */
export function arnRef(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.map(arnRef).find(Boolean);
  if (value && typeof value === 'object') {
    const v = value as Json;
    if (Array.isArray(v['Fn::GetAtt']) && v['Fn::GetAtt'][1] === 'Arn') return v['Fn::GetAtt'][0];
    return Object.values(v).map(arnRef).find(Boolean);
  }
  return undefined;
}

export interface ApiMethod {
  path: string;
  httpMethod: string;
  props: Json;
}

/** Every method with its full path. */
export function apiMethods(template: Template): ApiMethod[] {
  const paths = apiPaths(template);
  return Object.values(template.findResources('AWS::ApiGateway::Method')).map((m) => {
    const props = m.Properties as Json;
    const path = props.ResourceId.Ref ? paths.get(props.ResourceId.Ref)! : '/';
    return { path, httpMethod: props.HttpMethod, props };
  });
}

/** Function logical id by its Description (= handler module). */
export function functionIds(template: Template): Map<string, string> {
  const fns = template.findResources('AWS::Lambda::Function');
  return new Map(Object.entries(fns).map(([id, f]) => [(f.Properties as Json).Description as string, id]));
}

export interface Statement {
  Action: string | string[];
  Resource: unknown;
  Effect: string;
}

/** Every identity-policy statement attached to a role (default policy and any overflow policies). */
export function roleStatements(template: Template, roleId: string): Statement[] {
  const attached = (type: string) =>
    Object.values(template.findResources(type)).filter((p) => ((p.Properties as Json).Roles ?? []).some((r: Json) => r.Ref === roleId));
  return [...attached('AWS::IAM::Policy'), ...attached('AWS::IAM::ManagedPolicy')].flatMap(
    (p) => (p.Properties as Json).PolicyDocument.Statement as Statement[],
  );
}

export const actionsOf = (statements: Statement[]): string[] =>
  statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));

/** The role logical id of the function serving a handler module. */
export function functionRole(template: Template, handlerModule: string): string {
  const id = functionIds(template).get(handlerModule);
  if (!id) throw new Error(`no function for ${handlerModule}`);
  return arnRef(template.toJSON().Resources[id].Properties.Role)!;
}
