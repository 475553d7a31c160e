export { readEnvConfig, describeEnvConfig, type EnvConfig, type DatabricksEnvAuth } from './env.js';
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
