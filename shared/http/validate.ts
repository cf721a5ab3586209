import * as v from 'valibot';
import { badRequest } from '../errors.ts';

/**
 * Parses `input` with a valibot schema; the first issue becomes a 400 whose message names the
 * field (`body.client_name: ...`), never a 500. A missing field is always `is required`, whatever
 * the schema's wording (valibot's own is "Invalid key: Expected ..."), on every endpoint.
 */
export function validate<S extends v.GenericSchema>(schema: S, input: unknown, where: string): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = issue.path?.map((p) => String(p.key)).join('.');
  const field = path ? `${where}.${path}` : where;
  throw badRequest(`${field}: ${isMissing(issue) ? 'is required' : issue.message}`);
}

/** A member of an object that is absent (or undefined, which JSON cannot send). */
const isMissing = (issue: v.BaseIssue<unknown>): boolean => issue.received === 'undefined' && issue.path?.at(-1)?.type === 'object';
