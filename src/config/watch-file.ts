/**
 * Loads the watch file (YAML): parses it, validates it with zod, checks cross-references, and turns
 * every mistake into a `ConfigIssue` with its line:column, key path, and what to write instead.
 * Pure: text in, result out (`readWatchConfigFile` does the disk read).
 */
import { LineCounter, parseDocument, visit, type Document } from 'yaml';
import type { z } from 'zod';
import { didYouMean } from './did-you-mean.js';
import { knownKeysAt, watchFileSchema, type WatchFileParsed } from './watch-schema.js';
import { formatConfigIssues, type ConfigIssue, type LoadWatchConfigResult, type StreamWatch, type WatchConfig, type WorkspaceWatch } from './watch-config.js';
import { formatPath, locate, positionOf } from './yaml-locations.js';

const HINTS: Record<string, string> = {
  workspaces: 'write a list: workspaces: [ { name: prod, host: https://…, auth: { token_env: DATABRICKS_TOKEN } } ]',
  streams: 'write a list of streams, each with query_id: <uuid> or name: <queryName>',
  defaults: 'write defaults: { channel: "#streaming-alerts" }',
  channel: 'write it in quotes, e.g. channel: "#streaming-alerts" (an unquoted # starts a YAML comment)',
  name: 'write a name, e.g. name: orders_5min_agg',
  host: 'e.g. host: https://adb-1234567890123456.7.azuredatabricks.net',
  auth: 'write auth: { token_env: DATABRICKS_TOKEN }, auth: { client_id_env: DATABRICKS_CLIENT_ID, client_secret_env: DATABRICKS_CLIENT_SECRET } or auth: { profile: prod } (a ~/.databrickscfg profile)',
  profile: 'e.g. profile: prod (a [prod] section of ~/.databrickscfg)',
  warehouse_id: 'e.g. warehouse_id: 4b9b953939869799 (from the warehouse connection details)',
  progress_table: 'e.g. progress_table: main.streamdoctor.streaming_progress',
  jobs: 'write a list: jobs: [ { id: 19064954 } ]',
  pipelines: 'write a list: pipelines: [ { id: abcdef12-abcd-3456-7890-abcd1234ef56 } ]',
  id: 'the id from the job or pipeline URL',
  job: 'the numeric job id, e.g. job: 19064954',
  continuous: 'write true or false',
  cores: 'a whole number, e.g. cores: 16',
  poll_interval: 'e.g. poll_interval: 60s',
  retention: 'e.g. retention: 7d',
  trigger: 'e.g. trigger: 30s',
  digest: 'write digest: { time: "09:00", time_zone: Europe/Berlin }',
  time: 'e.g. time: "09:00"',
  time_zone: 'e.g. time_zone: Europe/Berlin',
  thresholds: 'write thresholds: { repartition: 10m }',
  query_id: 'the UUID in the progress "id" field',
};

/** yaml's `maxAliasCount` (its default, 100, refuses a plain anchor used by 100 streams). */
export const MAX_ALIAS_EXPANSION = 10_000;

const SECRET_KEYS = new Set(['token', 'client_secret', 'secret', 'password', 'pat', 'access_token']);
const SECRET_VALUE = /^(dapi[0-9a-f]{16,}|xox[abposr]-|xapp-)/i;

function issueAt(doc: Document, lineCounter: LineCounter, path: (string | number)[], message: string, atKey = false): ConfigIssue {
  const found = locate(doc, path);
  const node = atKey && found.keyNode ? found.keyNode : found.node;
  const { line, column } = positionOf(node, lineCounter);
  return { path: formatPath(path), line, column, message };
}

function withHint(message: string, path: (string | number)[]): string {
  if (/e\.g\.|write /.test(message)) return message;
  const leaf = [...path].reverse().find((part) => typeof part === 'string') as string | undefined;
  const hint = leaf ? HINTS[leaf] : undefined;
  return hint ? `${message}; ${hint}` : message;
}

function friendly(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    const received = (issue as { input?: unknown }).input;
    const got = received === undefined ? 'nothing' : received === null ? 'an empty value' : Array.isArray(received) ? 'a list' : typeof received === 'object' ? 'a mapping' : `${typeof received} ${JSON.stringify(received)}`;
    return received === undefined ? `is missing (expected ${issue.expected})` : `expected ${issue.expected}, got ${got}`;
  }
  return issue.message;
}

/** Walks parsed YAML for inline secrets, which must never be in this file. */
function findSecrets(value: unknown, path: (string | number)[], out: { path: (string | number)[]; key: boolean }[]): void {
  if (Array.isArray(value)) value.forEach((item, index) => findSecrets(item, [...path, index], out));
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (SECRET_KEYS.has(key.toLowerCase())) out.push({ path: [...path, key], key: true });
      else findSecrets(item, [...path, key], out);
    }
  } else if (typeof value === 'string' && SECRET_VALUE.test(value)) out.push({ path, key: false });
}

function normalizeHost(host: string): string {
  const text = host.trim().replace(/\/+$/, '');
  return /^https?:\/\//i.test(text) ? text : `https://${text}`;
}

/** What the environment sets over the file. */
export interface WatchConfigOverrides {
  /** `STREAMDOCTOR_DEFAULT_CHANNEL`: replaces `defaults.channel` wherever the file would use it. @defaultValue the file's */
  defaultChannel?: string | null;
}

export function loadWatchConfig(text: string, path: string, overrides: WatchConfigOverrides = {}): LoadWatchConfigResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const fail = (errors: ConfigIssue[]): LoadWatchConfigResult => ({ ok: false, errors, message: formatConfigIssues(path, errors) });

  if (doc.errors.length > 0) {
    return fail(
      doc.errors.map((error) => {
        const pos = lineCounter.linePos(error.pos[0]);
        const first = error.message.split('\n')[0]!;
        const hint = error.code === 'DUPLICATE_KEY' ? '; each key may appear once in a mapping' : error.code === 'TAB_AS_INDENT' ? '; indent with spaces' : '';
        return { path: '(yaml)', line: pos.line, column: pos.col, message: `YAML syntax: ${first}${hint}` };
      }),
    );
  }
  let data: unknown;
  try {
    // yaml's guard multiplies each anchor's uses by the aliases inside it: an estimate of the expanded
    // size, so a legitimate file may use one anchor (a channel) for hundreds of streams, while a
    // "billion laughs" file (aliases of aliases) passes 10,000 within a few levels and is refused.
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_EXPANSION });
  } catch (error) {
    // The yaml library throws (a ReferenceError) instead of listing an error; say it as a watch-file problem.
    const excessive = /excessive alias/i.test((error as Error)?.message ?? '');
    const at = excessive ? firstAliasOffset(doc) : 0;
    const pos = lineCounter.linePos(at);
    return fail([
      {
        path: '(yaml)',
        line: pos.line,
        column: pos.col,
        message: excessive
          ? `YAML aliases expand to more than ${MAX_ALIAS_EXPANSION.toLocaleString('en')} nodes (aliases of aliases multiply); write the repeated parts out, or alias only plain values such as a channel`
          : /unresolved alias/i.test((error as Error)?.message ?? '')
            ? 'YAML alias used before its anchor; write the anchor (&name) above every alias (*name) of it'
            : `YAML could not be read: ${String((error as Error)?.message ?? error).split('\n')[0]!.slice(0, 200)}`,
      },
    ]);
  }
  if (data === null || data === undefined) {
    return fail([{ path: '(top level)', line: 1, column: 1, message: 'the file is empty; start from examples/streamdoctor.example.yml (workspaces:, defaults:, streams:)' }]);
  }

  const errors: ConfigIssue[] = [];
  const secrets: { path: (string | number)[]; key: boolean }[] = [];
  findSecrets(data, [], secrets);
  for (const secret of secrets) {
    errors.push(
      issueAt(
        doc,
        lineCounter,
        secret.path,
        secret.key
          ? 'never write secrets in this file; put the secret in an environment variable and name it, e.g. token_env: DATABRICKS_TOKEN or client_secret_env: DATABRICKS_CLIENT_SECRET'
          : 'this looks like a token; never write secrets in this file — name the environment variable that holds it instead (token_env: DATABRICKS_TOKEN)',
        secret.key,
      ),
    );
  }
  const secretPaths = new Set(secrets.map((secret) => formatPath(secret.path)));

  const parsed = watchFileSchema.safeParse(data);
  if (!parsed.success) {
    // A misspelled key already says what to fix; "name where the credentials are" on the same object only repeats it.
    const misspelledAt = new Set(
      parsed.error.issues.filter((issue) => issue.code === 'unrecognized_keys').map((issue) => formatPath(issue.path.filter((part): part is string | number => typeof part !== 'symbol'))),
    );
    for (const issue of parsed.error.issues) {
      const issuePath = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          if (secretPaths.has(formatPath([...issuePath, key]))) continue;
          const known = knownKeysAt(issuePath);
          const suggestion = didYouMean(key, known);
          const message = suggestion
            ? `unknown key "${key}"; did you mean "${suggestion}"?`
            : `unknown key "${key}"; allowed here: ${known.join(', ')}`;
          errors.push(issueAt(doc, lineCounter, [...issuePath, key], message, true));
        }
        continue;
      }
      if (secretPaths.has(formatPath(issuePath))) continue;
      if (issue.code === 'custom' && misspelledAt.has(formatPath(issuePath))) continue;
      // "name where the credentials are" adds nothing when the secret itself was written inline.
      if (issue.code === 'custom' && secrets.some((secret) => secret.key && formatPath(secret.path.slice(0, -1)) === formatPath(issuePath))) continue;
      errors.push(issueAt(doc, lineCounter, issuePath, withHint(friendly(issue), issuePath)));
    }
    return fail(dedupe(errors));
  }
  if (errors.length) return fail(errors);

  const crossErrors = crossCheck(parsed.data, doc, lineCounter);
  if (crossErrors.length) return fail(crossErrors);
  return { ok: true, config: build(parsed.data, overrides.defaultChannel ?? parsed.data.defaults.channel), warnings: [] };
}

/** Where the first alias (`*name`) of the file starts, for the line:column of an alias error. */
function firstAliasOffset(doc: Document): number {
  let offset = 0;
  visit(doc, {
    Alias(_key, node) {
      offset = node.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return offset;
}

function dedupe(issues: ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}|${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function crossCheck(data: WatchFileParsed, doc: Document, lineCounter: LineCounter): ConfigIssue[] {
  const errors: ConfigIssue[] = [];
  const names = data.workspaces.map((workspace) => workspace.name);
  data.workspaces.forEach((workspace, index) => {
    if (names.indexOf(workspace.name) !== index) {
      errors.push(issueAt(doc, lineCounter, ['workspaces', index, 'name'], `workspace name "${workspace.name}" is used twice; give each workspace its own name`));
    }
    if (workspace.progress_table && !workspace.warehouse_id) {
      errors.push(issueAt(doc, lineCounter, ['workspaces', index, 'progress_table'], 'reading the progress table needs a SQL warehouse; add warehouse_id: <id> to this workspace'));
    }
  });
  const seenStreams = new Map<string, number>();
  data.streams.forEach((stream, index) => {
    let workspaceName = stream.workspace;
    if (workspaceName === undefined) {
      if (data.workspaces.length > 1) {
        errors.push(issueAt(doc, lineCounter, ['streams', index], `with several workspaces each stream needs workspace: one of ${names.join(', ')}`));
        return;
      }
      workspaceName = names[0]!;
    } else if (!names.includes(workspaceName)) {
      const suggestion = didYouMean(workspaceName, names);
      errors.push(
        issueAt(doc, lineCounter, ['streams', index, 'workspace'], `no workspace is named "${workspaceName}"; ${suggestion ? `did you mean "${suggestion}"?` : `write one of ${names.join(', ')}`}`),
      );
      return;
    }
    const workspace = data.workspaces.find((candidate) => candidate.name === workspaceName)!;
    if (!workspace.progress_table && workspace.pipelines.length === 0) {
      errors.push(
        issueAt(doc, lineCounter, ['streams', index], `workspace "${workspaceName}" has no progress_table (nor pipelines) to read this stream's progress from; add progress_table: catalog.schema.table and warehouse_id`),
      );
    }
    const key = `${workspaceName}/${stream.query_id ?? `name:${stream.name}`}`;
    const previous = seenStreams.get(key);
    if (previous !== undefined) {
      errors.push(issueAt(doc, lineCounter, ['streams', index], `the same stream is listed twice (also at streams[${previous}]); keep one entry`));
    }
    seenStreams.set(key, index);
  });
  return errors;
}

function build(data: WatchFileParsed, defaultChannel: string): WatchConfig {
  const workspaces: WorkspaceWatch[] = data.workspaces.map((workspace) => ({
    name: workspace.name,
    host: normalizeHost(workspace.host),
    auth:
      workspace.auth === undefined || workspace.auth.profile !== undefined
        ? { kind: 'databricks-config', profile: workspace.auth?.profile ?? null }
        : workspace.auth.token_env !== undefined
          ? { kind: 'pat', tokenEnv: workspace.auth.token_env }
          : { kind: 'oauth-m2m', clientIdEnv: workspace.auth.client_id_env!, clientSecretEnv: workspace.auth.client_secret_env! },
    warehouseId: workspace.warehouse_id ?? null,
    progressTable: workspace.progress_table ?? null,
    jobs: workspace.jobs.map((job) => ({ jobId: job.id, name: job.name ?? null, continuous: job.continuous ?? null, channel: job.channel ?? defaultChannel })),
    pipelines: workspace.pipelines.map((pipeline) => ({ pipelineId: pipeline.id, name: pipeline.name ?? null, channel: pipeline.channel ?? defaultChannel })),
  }));
  const streams: StreamWatch[] = data.streams.map((stream) => {
    const workspace = workspaces.find((candidate) => candidate.name === (stream.workspace ?? workspaces[0]!.name))!;
    const job = stream.job !== undefined ? workspace.jobs.find((candidate) => candidate.jobId === stream.job) : undefined;
    if (stream.job !== undefined && !job) {
      // A job named only on a stream is watched too.
      workspace.jobs.push({ jobId: stream.job, name: null, continuous: null, channel: stream.channel ?? defaultChannel });
    }
    return {
      queryId: stream.query_id ?? null,
      name: stream.name ?? null,
      workspace: workspace.name,
      channel: stream.channel ?? job?.channel ?? defaultChannel,
      jobId: stream.job ?? null,
      triggerMs: stream.trigger ?? null,
      cores: stream.cores ?? null,
      retentionMs: stream.retention ?? data.retention,
    };
  });
  const digest = data.digest
    ? {
        time: data.digest.time,
        hour: Number(data.digest.time.slice(0, 2)),
        minute: Number(data.digest.time.slice(3, 5)),
        timeZone: data.digest.time_zone,
      }
    : null;
  return {
    workspaces,
    streams,
    defaultChannel,
    pollIntervalMs: data.poll_interval,
    digest,
    retentionMs: data.retention,
    thresholds: {
      repartitionMs: data.thresholds.repartition ?? null,
    },
  };
}
