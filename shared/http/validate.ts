import * as v from 'valibot';
import { badRequest } from '../errors.ts';

/**
 * Parses `input` with a valibot schema; the first issue becomes a 400 whose message names the
 * field (`body.client_name: ...`), never a 500.
 */
export function validate<S extends v.GenericSchema>(schema: S, input: unknown, where: string): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = issue.path?.map((p) => String(p.key)).join('.');
  const field = path ? `${where}.${path}` : where;
  throw badRequest(`${field}: ${issue.message}`);
}
