/** The validated watch file, in the shape the rest of the product reads (camelCase, resolved defaults). */
import { ConfigError } from '../util/errors.js';

export type WorkspaceAuthRef =
  | { kind: 'pat'; tokenEnv: string }
  | { kind: 'oauth-m2m'; clientIdEnv: string; clientSecretEnv: string }
  /** Databricks unified auth: `DATABRICKS_*` variables, else a `.databrickscfg` profile (`auth.profile`, or `auth` unset). */
  | { kind: 'databricks-config'; profile: string | null };

export interface WatchedJobConfig {
  jobId: number;
  name: string | null;
  /** Unset: inferred from the runs' trigger. */
  continuous: boolean | null;
  channel: string;
}

export interface WatchedPipelineConfig {
  pipelineId: string;
  name: string | null;
  channel: string;
}

export interface WorkspaceWatch {
  name: string;
  /** Origin, e.g. `https://adb-1234567890123456.7.azuredatabricks.net`. */
  host: string;
  auth: WorkspaceAuthRef;
  warehouseId: string | null;
  progressTable: string | null;
  jobs: WatchedJobConfig[];
  pipelines: WatchedPipelineConfig[];
}

export interface StreamWatch {
  queryId: string | null;
  name: string | null;
  workspace: string;
  /** Channel its incidents go to (stream, else its job's, else the default). */
  channel: string;
  jobId: number | null;
  triggerMs: number | null;
  cores: number | null;
  retentionMs: number;
}

export interface WatchConfig {
  workspaces: WorkspaceWatch[];
  streams: StreamWatch[];
  defaultChannel: string;
  pollIntervalMs: number;
  digest: { time: string; hour: number; minute: number; timeZone: string } | null;
  retentionMs: number;
  thresholds: {
    /** A state repartition slower than this is an incident (the engine's `repartitionThresholdMs`). */
    repartitionMs: number | null;
  };
}

export interface ConfigIssue {
  /** Key path, e.g. `workspaces[0].auth.token_env`. */
  path: string;
  line: number;
  column: number;
  /** What is wrong and what to write instead. */
  message: string;
}

export type LoadWatchConfigResult =
  | { ok: true; config: WatchConfig; warnings: ConfigIssue[] }
  | { ok: false; errors: ConfigIssue[]; /** All errors, one per line, `file:line:col path: message`. */ message: string };

export function formatConfigIssues(file: string, issues: ConfigIssue[]): string {
  return issues.map((issue) => `${file}:${issue.line}:${issue.column} ${issue.path}: ${issue.message}`).join('\n');
}

/** Thrown by callers that cannot go on without a valid file. */
export class WatchConfigError extends ConfigError {
  constructor(
    readonly file: string,
    readonly issues: ConfigIssue[],
  ) {
    const text = formatConfigIssues(file, issues);
    super(text.split('\n'), `${file} has ${issues.length} mistake(s):\n${text}`);
  }
}
