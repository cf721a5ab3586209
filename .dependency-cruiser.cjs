/**
 * Layer boundaries (docs/design.md §3.13), checked by `npm run boundaries` inside `npm test`.
 * docs/architecture.md says what each layer is for and why each rule exists.
 */

/** Pure layers: use cases, list machinery, records and OAuth rules. They see ports, never AWS. */
const PURE = '^shared/(management|lists|records|oauth|rbac|tokens|clients|http|health|validation|html|browser|federation)/';
const AWS_SDK = '^(node_modules/)?@aws-sdk/';
const TABLE_KEYS = '^shared/store/core/table-keys[.]ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes load order matter and the layers meaningless.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'pure-layers-no-aws-sdk',
      severity: 'error',
      comment:
        'Use cases, lists, records and OAuth rules take their storage and keys as ports; only store/, keys/ and the composition root talk to AWS.',
      from: { path: PURE },
      to: { path: AWS_SDK },
    },
    {
      name: 'pure-layers-no-table-keys',
      severity: 'error',
      comment: 'Table keys (PK/SK/GSI names and formats) belong to the store; a use case asks a repository.',
      from: { path: PURE },
      to: { path: TABLE_KEYS },
    },
    {
      name: 'store-points-down',
      severity: 'error',
      comment:
        "The store serves the layers above it, never the other way round (types included): the ports, record shapes and crypto helpers it needs live in ports/, records/ and crypto/, and the glue that adapts it to a layer's port lives in wiring/.",
      from: { path: '^shared/store/' },
      to: { path: '^shared/(oauth|management|browser|users|tokens|keys|wiring|events)/' },
    },
    {
      name: 'foundations-point-down',
      severity: 'error',
      comment:
        'Record shapes, ports and crypto helpers are what every layer (the store included) builds on; they import only each other and the pure RBAC rules, never a layer above.',
      from: { path: '^shared/(records|ports|crypto)/' },
      to: { path: '^shared/(store|oauth|management|browser|users|tokens|keys|wiring|http|bootstrap|lists|events)/' },
    },
    {
      name: 'management-through-ports',
      severity: 'error',
      comment:
        'Management reads the token path (clients, the management API, users, RBAC records) only through the PrincipalReads port in shared/ports/, never by importing an OAuth module, types included.',
      from: { path: '^shared/management/' },
      to: { path: '^shared/oauth/' },
    },
    {
      name: 'one-composition-root',
      severity: 'error',
      comment:
        'shared/wiring/ builds every dependency from the runtime; handlers (functions/), tests, benchmarks and the local stand-ins import it, and no other shared module does: a use case receives its dependencies, it never fetches them.',
      from: { path: '^shared/', pathNot: '^shared/wiring/' },
      to: { path: '^shared/wiring/' },
    },
    {
      name: 'functions-through-wiring',
      severity: 'error',
      comment: 'A handler gets its repositories from shared/wiring/, never by building them from the store itself.',
      from: { path: '^functions/' },
      to: { path: '^shared/store/' },
    },
    {
      name: 'shared-not-to-infra-or-functions',
      severity: 'error',
      comment: 'shared/ is what handlers and infra build on; it never reaches back into them.',
      from: { path: '^shared/' },
      to: { path: '^(infra|functions)/' },
    },
    {
      name: 'routes-are-data',
      severity: 'error',
      comment:
        "The route table is plain data that every function's pipeline and the CDK app read: its modules import only each other, so a row never drags code into every bundle.",
      from: { path: '^shared/routes/' },
      to: { pathNot: '^shared/routes/' },
    },
    {
      name: 'functions-only-wire',
      severity: 'error',
      comment: 'A handler wires a pipeline to a use case; it never talks to AWS itself.',
      from: { path: '^functions/' },
      to: { path: AWS_SDK },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(cdk[.]out|[.]data|bench/results|test-results)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    skipAnalysisNotInRules: true,
  },
};
