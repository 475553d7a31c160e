export { readEnvConfig, describeEnvConfig, slackProblems, ENV_VARIABLES, ENV_SCHEMA, QUEUE_NAMES, type EnvConfig, type DatabricksEnvAuth, type PipelineSettings, type WorkerQueueName, type SlackNeed } from './env.js';
export { DEFAULTS } from './defaults.js';
export { loadConfig, type Config } from './load-config.js';
export { loadWatchConfig } from './watch-file.js';
export { readWatchConfigFile } from './read-watch-file.js';
export { resolveWorkspaceCredentials, type CredentialsResult } from './workspace-credentials.js';
export {
  formatConfigIssues,
  WatchConfigError,
  type ConfigIssue,
  type LoadWatchConfigResult,
  type StreamWatch,
  type WatchConfig,
  type WatchedJobConfig,
  type WatchedPipelineConfig,
  type WorkspaceAuthRef,
  type WorkspaceWatch,
} from './watch-config.js';
export { didYouMean } from './did-you-mean.js';
export { parseDatabricksConfigFile, type DatabricksConfigFileResult, type DatabricksConfigProfile } from './databricks-config-file.js';
export { resolveDatabricksAuth, chooseDatabricksCredentials, DATABRICKS_AUTH_TYPES, type DatabricksAuthResult, type DatabricksConfigFileText, type ResolvedDatabricksAuth } from './databricks-auth.js';
export { readDatabricksConfigFile, databricksConfigPath } from './read-databricks-config-file.js';
