/**
 * Wire shapes (snake_case, as Databricks sends them) of the endpoints StreamDoctor calls: the SQL
 * Statement Execution API, the pipeline events API and the jobs runs API. Fields the product does not
 * read are left out; every field is optional where Databricks may omit it.
 */

export interface StatementParameter {
  name: string;
  /** null/absent = SQL NULL. */
  value?: string | null;
  /** e.g. `INT`, `TIMESTAMP`; absent = STRING. */
  type?: string;
}

export interface ExecuteStatementRequest {
  statement: string;
  warehouse_id: string;
  catalog?: string;
  schema?: string;
  parameters?: StatementParameter[];
  /** `0s` or `5s`..`50s`. */
  wait_timeout?: string;
  on_wait_timeout?: 'CONTINUE' | 'CANCEL';
  format?: 'JSON_ARRAY' | 'ARROW_STREAM' | 'CSV';
  disposition?: 'INLINE' | 'EXTERNAL_LINKS';
  row_limit?: number;
  byte_limit?: number;
  query_tags?: { key: string; value: string }[];
}

export type StatementState = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED' | 'CLOSED';

export interface StatementStatus {
  state: StatementState;
  error?: { error_code?: string; message?: string; sql_state?: string };
  sql_state?: string;
}

export interface ColumnInfo {
  name: string;
  position: number;
  type_name?: string;
  type_text?: string;
}

export interface ResultManifest {
  format?: string;
  schema?: { column_count?: number; columns?: ColumnInfo[] };
  total_chunk_count?: number;
  total_row_count?: number;
  chunks?: { chunk_index: number; row_offset: number; row_count: number; byte_count?: number }[];
  truncated?: boolean;
}

export interface ResultData {
  chunk_index?: number;
  row_offset?: number;
  row_count?: number;
  data_array?: (string | null)[][];
  next_chunk_index?: number;
  next_chunk_internal_link?: string;
}

export interface StatementResponse {
  statement_id: string;
  status: StatementStatus;
  manifest?: ResultManifest;
  result?: ResultData;
}

export interface PipelineEvent {
  id?: string;
  sequence?: { control_plane_seq_no?: number | string; data_plane_id?: { instance?: string; seq_no?: number | string } };
  origin?: {
    pipeline_id?: string;
    pipeline_name?: string;
    update_id?: string;
    flow_id?: string;
    flow_name?: string;
    dataset_name?: string;
    cluster_id?: string;
    [key: string]: unknown;
  };
  timestamp?: string;
  message?: string;
  level?: string;
  maturity_level?: string;
  event_type?: string;
  error?: { fatal?: boolean; exceptions?: { class_name?: string; message?: string }[] };
  /** Undocumented in the SDK models but present in the REST JSON (reference §2c). */
  details?: Record<string, unknown>;
}

export interface ListPipelineEventsResponse {
  events?: PipelineEvent[];
  next_page_token?: string;
  prev_page_token?: string;
}

export interface RunState {
  life_cycle_state?: string;
  result_state?: string;
  state_message?: string;
  user_cancelled_or_timedout?: boolean;
}

export interface Run {
  job_id?: number;
  run_id: number;
  run_name?: string;
  run_page_url?: string;
  run_type?: string;
  trigger?: string;
  start_time?: number;
  end_time?: number;
  state?: RunState;
  status?: {
    state?: string;
    termination_details?: { code?: string; type?: string; message?: string };
    queue_details?: { code?: string; message?: string };
  };
}

export interface ListRunsResponse {
  runs?: Run[];
  has_more?: boolean;
  next_page_token?: string;
  prev_page_token?: string;
}

/** `autoscale` of a cluster spec: the cluster runs between these many workers. */
export interface AutoScale {
  min_workers?: number;
  max_workers?: number;
}

/**
 * A cluster spec (`compute.ClusterSpec`) as jobs carry it in `job_clusters[].new_cluster` or a task's
 * `new_cluster`: fixed `num_workers` or `autoscale`, one node type for the workers (absent when an
 * instance pool gives the nodes).
 */
export interface ClusterSpec {
  spark_version?: string;
  node_type_id?: string;
  driver_node_type_id?: string;
  instance_pool_id?: string;
  num_workers?: number;
  autoscale?: AutoScale;
  policy_id?: string;
  data_security_mode?: string;
}

export interface JobCluster {
  job_cluster_key: string;
  new_cluster?: ClusterSpec;
}

export interface JobTask {
  task_key: string;
  job_cluster_key?: string;
  new_cluster?: ClusterSpec;
  existing_cluster_id?: string;
  /** Serverless tasks name an environment instead of a cluster. */
  environment_key?: string;
}

export interface JobSettings {
  name?: string;
  tasks?: JobTask[];
  job_clusters?: JobCluster[];
  continuous?: { pause_status?: string };
  max_concurrent_runs?: number;
}

/** `GET /api/2.1/jobs/get` (reference §2b). */
export interface Job {
  job_id: number;
  creator_user_name?: string;
  run_as_user_name?: string;
  created_time?: number;
  settings?: JobSettings;
  /** Set when `tasks` / `job_clusters` continue on another page (2.2 only). */
  has_more?: boolean;
  next_page_token?: string;
}
