/**
 * The layer rules `npm run lint` checks (dependency-cruiser). Layers import inward only:
 *
 *   core ← infra ← app ← composition root
 *
 * and the no-credentials tooling (demo, stand-ins, simulator) is never reached from production code
 * by a static import: the composition root loads it with `await import()` when it is asked for.
 * DEVELOPERS.md ("Layers") says which folder sits where and why; keep the two in step.
 */
const CORE = '^src/(progress|diagnosis|util)/';
const INFRA = '^src/(config|observability|store|databricks|sources|capacity|slack)/';
const APP = '^(jobs|handlers)/';
const ROOT = '^src/(runtime|cli)/';
const DEV_ONLY = '^src/(demo|standins|simulator)/';

const see = 'see DEVELOPERS.md, Layers';

module.exports = {
  forbidden: [
    {
      name: 'core-imports-outward',
      severity: 'error',
      comment: `core (src/progress, src/diagnosis, src/util) is pure and imports only core; ${see}`,
      from: { path: CORE },
      to: { path: [INFRA, APP, ROOT, DEV_ONLY] },
    },
    {
      name: 'infra-imports-outward',
      severity: 'error',
      comment: `infra (src/config, src/observability, src/store, src/databricks, src/sources, src/capacity, src/slack) imports only core and infra; ${see}`,
      from: { path: INFRA },
      to: { path: [APP, ROOT, DEV_ONLY] },
    },
    {
      name: 'app-imports-outward',
      severity: 'error',
      comment: `app (jobs/, handlers/) imports only core, infra and app, never the composition root; ${see}`,
      from: { path: APP },
      to: { path: [ROOT, DEV_ONLY] },
    },
    {
      name: 'handlers-and-jobs-apart',
      severity: 'error',
      comment: `handlers/ and jobs/ do not import each other: what both need lives in infra (the store, the Slack gateway); ${see}`,
      from: { path: '^handlers/' },
      to: { path: '^jobs/' },
    },
    {
      name: 'slack-gateway-below-operations',
      severity: 'error',
      comment: `the Slack gateway (src/slack/gateway/: the chat client and the exactly-once poster) never imports the operations the handlers and jobs share (src/slack/operations/); ${see}`,
      from: { path: '^src/slack/gateway/' },
      to: { path: '^src/slack/operations/' },
    },
    {
      name: 'dev-only-statically-reached',
      severity: 'error',
      comment: `the demo, the stand-ins and the simulator are loaded by the composition root with await import() only, never a static import; ${see}`,
      // The stand-ins' own commands (`streamdoctor local-slack`, `local-databricks`) are dev tools
      // themselves; main.ts loads every command with import().
      from: { path: ROOT, pathNot: '^src/cli/commands/local-(slack|databricks)\\.ts$' },
      to: { path: DEV_ONLY, dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'simulator-imports-core-only',
      severity: 'error',
      comment: `the simulator prints progress as Spark does from core types alone (it drives the tests, npm run eval and the stand-ins); ${see}`,
      from: { path: '^src/simulator/' },
      to: { path: [INFRA, APP, ROOT, '^src/(demo|standins)/'] },
    },
    {
      name: 'standins-apart-from-the-bot',
      severity: 'error',
      comment: `the stand-ins speak the wire formats on their own: they import no app code (jobs/, handlers/) and not the demo; ${see}`,
      from: { path: '^src/standins/' },
      to: { path: [APP, '^src/demo/'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'this import does not resolve to a file',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // TypeScript 7 has no compiler API for dependency-cruiser; swc parses the sources. Imports
    // ending in `.js` resolve to the `.ts` file beside them.
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6'],
  },
};
