/**
 * Decides whether `npm start` runs the demo (no credentials at all) or the real thing (Slack and
 * Databricks both configured). Half a configuration is refused with a message naming what is
 * missing: silently falling back to the demo would hide a typo in a production deployment.
 */
import { slackProblems } from './env.js';

/** Every variable whose presence means "the operator meant to talk to a real service". */
export const SLACK_CREDENTIAL_VARS = ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN'] as const;
export const DATABRICKS_CREDENTIAL_VARS = [
  'DATABRICKS_HOST',
  'DATABRICKS_TOKEN',
  'DATABRICKS_CLIENT_ID',
  'DATABRICKS_CLIENT_SECRET',
] as const;

export type StartMode =
  | { mode: 'demo'; reason: string }
  | { mode: 'live' }
  | { mode: 'invalid'; problems: string[] };

const isSet = (env: NodeJS.ProcessEnv, name: string): boolean => (env[name] ?? '').trim() !== '';

/** What is still missing for Slack; empty when Slack is fully configured (the same check every process makes). */
export function missingSlack(env: NodeJS.ProcessEnv): string[] {
  const text = (name: string) => (isSet(env, name) ? env[name]!.trim() : null);
  return slackProblems({ botToken: text('SLACK_BOT_TOKEN'), signingSecret: text('SLACK_SIGNING_SECRET'), appToken: text('SLACK_APP_TOKEN') }, 'app');
}

/** What is still missing for Databricks; empty when Databricks is fully configured. */
export function missingDatabricks(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  if (!isSet(env, 'DATABRICKS_HOST')) problems.push('DATABRICKS_HOST (https://<workspace>.cloud.databricks.com) is not set');
  const token = isSet(env, 'DATABRICKS_TOKEN');
  const id = isSet(env, 'DATABRICKS_CLIENT_ID');
  const secret = isSet(env, 'DATABRICKS_CLIENT_SECRET');
  if (!token && !(id && secret)) {
    if (id !== secret) {
      problems.push(id ? 'DATABRICKS_CLIENT_SECRET is not set (DATABRICKS_CLIENT_ID is)' : 'DATABRICKS_CLIENT_ID is not set (DATABRICKS_CLIENT_SECRET is)');
    } else {
      problems.push('DATABRICKS_TOKEN, or DATABRICKS_CLIENT_ID with DATABRICKS_CLIENT_SECRET, is not set');
    }
  }
  return problems;
}

/**
 * Pure function of the environment: demo when no credential variable is set (or `forceDemo`), live
 * when both sides are complete, otherwise the list of what is missing.
 */
export function detectStartMode(env: NodeJS.ProcessEnv, options: { forceDemo?: boolean } = {}): StartMode {
  if (options.forceDemo) return { mode: 'demo', reason: 'asked for with --demo' };
  const anySet = [...SLACK_CREDENTIAL_VARS, ...DATABRICKS_CREDENTIAL_VARS].some((name) => isSet(env, name));
  if (!anySet) return { mode: 'demo', reason: 'no Slack or Databricks credentials are set' };
  // A watch file or a ~/.databrickscfg profile says where each workspace's credentials are; the
  // start checks those precisely (src/config/databricks-auth.ts), the variables need not be set.
  const fromProfile = isSet(env, 'STREAMDOCTOR_CONFIG') || isSet(env, 'DATABRICKS_CONFIG_PROFILE');
  const problems = [...missingSlack(env), ...(fromProfile ? [] : missingDatabricks(env))];
  return problems.length === 0 ? { mode: 'live' } : { mode: 'invalid', problems };
}

/** The message printed for `invalid`: what is missing, and how to get the demo instead. */
export function describeInvalidMode(problems: string[]): string {
  return [
    'StreamDoctor found some credentials but not all of them, so it will not start:',
    ...problems.map((problem) => `  - ${problem}`),
    'Set the missing variables (see docs/production.md, "Environment variables"),',
    'or unset them all (or run `npm start -- --demo`) to run the built-in demo.',
  ].join('\n');
}
