import * as v from 'valibot';

/** RFC 7636 §4.1: code_verifier = 43*128unreserved. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const VERIFIER_RULE = 'must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 §4.1)';
const bounded = v.optional(v.pipe(v.string(), v.minLength(1, 'is required'), v.maxLength(4096)));
const verifier = v.optional(v.pipe(v.string(), v.regex(VERIFIER, VERIFIER_RULE)));

/** The code's two spellings, and the verifier's (docs/contract.md §5.1). */
export type CodeName = 'code' | 'authorization_code';
export type VerifierName = 'code_verifier' | 'authorization_code_verifier';

/** The parameters of the code grants once their spellings are settled. */
export interface CodeParameters {
  code: string;
  redirect_uri: string;
  code_verifier: string | undefined;
  /** The spelling the client used, so every error names the parameter it sent. */
  code_name: CodeName;
  verifier_name: VerifierName | undefined;
}

const issuePath = (input: Record<string, unknown>, key: string): [v.ObjectPathItem] => [
  { type: 'object', origin: 'value', input, key, value: input[key] },
];

/**
 * One value out of two spellings of a parameter. Both sent with the same value is that value: a
 * client that follows both the spec and RFC 6749 may send both, and nothing is ambiguous. Both with
 * different values is refused (400, naming the second spelling), never one silently preferred.
 */
function settle<N extends string>(
  input: Record<string, unknown>,
  [first, second]: readonly [N, N],
  addIssue: (info: { message: string; path: [v.ObjectPathItem] }) => void,
): { value: string | undefined; name: N | undefined } | undefined {
  const a = input[first] as string | undefined;
  const b = input[second] as string | undefined;
  if (a !== undefined && b !== undefined && a !== b) {
    addIssue({ message: `must equal ${first} when both are sent (they are two names of one parameter)`, path: issuePath(input, second) });
    return undefined;
  }
  if (a !== undefined) return { value: a, name: first };
  if (b !== undefined) return { value: b, name: second };
  return { value: undefined, name: undefined };
}

/**
 * The code grants' own parameters at `/token` (spec 4.2, docs/contract.md §5.1): the code as `code`
 * (RFC 6749 §4.1.3) or `authorization_code` (the spec's name), the PKCE verifier as
 * `code_verifier` (RFC 7636 §4.5) or `authorization_code_verifier`, and `redirect_uri`. Each value
 * is bounded before anything else looks at it; a missing code names the spelling of the grant type
 * (`authorization_code_verifier`, the spec's, asks for `authorization_code`).
 */
export const CodeParametersSchema = v.pipe(
  v.looseObject({
    code: bounded,
    authorization_code: bounded,
    redirect_uri: v.pipe(v.string(), v.minLength(1, 'is required'), v.maxLength(4096)),
    code_verifier: verifier,
    authorization_code_verifier: verifier,
  }),
  v.rawTransform(({ dataset, addIssue, NEVER }): CodeParameters => {
    const input = dataset.value as Record<string, unknown>;
    const code = settle(input, ['code', 'authorization_code'] as const, addIssue);
    if (!code) return NEVER;
    if (code.value === undefined || code.name === undefined) {
      const name = input.grant_type === 'authorization_code_verifier' ? 'authorization_code' : 'code';
      addIssue({ message: 'is required', path: issuePath(input, name) });
      return NEVER;
    }
    const pkce = settle(input, ['code_verifier', 'authorization_code_verifier'] as const, addIssue);
    if (!pkce) return NEVER;
    return {
      code: code.value,
      redirect_uri: dataset.value.redirect_uri,
      code_verifier: pkce.value,
      code_name: code.name,
      verifier_name: pkce.name,
    };
  }),
);
