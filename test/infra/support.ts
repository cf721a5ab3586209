import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Route } from '#shared/routes/route.ts';
import { IdentityServiceStack } from '../../infra/constructs/identity-service-stack.ts';
import { PROJECT_ROOT } from '../../infra/constructs/service-function.ts';
import { parseStageConfig } from '../../infra/stages.ts';

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

/** The stage stack's template and every nested stack's (API areas, monitoring), parent first. */
export function allTemplates(synthesized: Pick<Synthesized, 'stack' | 'template'>): Template[] {
  const nested = synthesized.stack.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c));
  return [synthesized.template, ...nested.map((n) => Template.fromStack(n))];
}

/** A value of a nested stack with every parameter `{Ref}` replaced by what the parent passes. */
export function resolveFromParent(parent: Template, value: unknown): any {
  if (Array.isArray(value)) return value.map((v) => resolveFromParent(parent, v));
  if (value && typeof value === 'object') {
    const passed = fromParent(parent, value);
    if (passed !== value) return passed;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveFromParent(parent, v)]));
  }
  return value;
}

interface ApiResource {
  /** `<template index>:<logical id>`: nested stacks' logical ids are only unique within their template. */
  key: string;
  props: Json;
}

/** Every AWS::ApiGateway::<type> of the stage and its nested stacks, parameters resolved. */
function apiResources(synthesized: Pick<Synthesized, 'stack' | 'template'>, type: string): ApiResource[] {
  return allTemplates(synthesized).flatMap((t, i) =>
    Object.entries(t.findResources(type)).map(([id, r]) => ({
      key: `${i}:${id}`,
      props: resolveFromParent(synthesized.template, r.Properties),
    })),
  );
}

/** The key of a resource a `{Ref}` names: in its own template, else (a resolved parameter) in the parent. */
function refKey(templateKey: string, ref: string, own: ReadonlySet<string>): string {
  const local = `${templateKey.split(':')[0]}:${ref}`;
  return own.has(local) ? local : `0:${ref}`;
}

/** Full resource path ('/a/{b}') of every AWS::ApiGateway::Resource, by key; the root is '/'. */
export function apiPaths(synthesized: Pick<Synthesized, 'stack' | 'template'>): Map<string, string> {
  const resources = new Map(apiResources(synthesized, 'AWS::ApiGateway::Resource').map((r) => [r.key, r.props]));
  const keys = new Set(resources.keys());
  const paths = new Map<string, string>();
  const pathOf = (key: string): string => {
    const known = paths.get(key);
    if (known) return known;
    const props = resources.get(key)!;
    const parent = props.ParentId.Ref ? pathOf(refKey(key, props.ParentId.Ref, keys)) : '';
    const path = `${parent}/${props.PathPart}`;
    paths.set(key, path);
    return path;
  };
  for (const key of keys) pathOf(key);
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
  /** Its properties, nested-stack parameters resolved to what the parent passes. */
  props: Json;
}

/** Every method with its full path, from the stage stack and its API-area nested stacks. */
export function apiMethods(synthesized: Pick<Synthesized, 'stack' | 'template'>): ApiMethod[] {
  const paths = apiPaths(synthesized);
  const keys = new Set(paths.keys());
  return apiResources(synthesized, 'AWS::ApiGateway::Method').map(({ key, props }) => {
    const path = props.ResourceId.Ref ? paths.get(refKey(key, props.ResourceId.Ref, keys))! : '/';
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
