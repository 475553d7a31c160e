/** The link behind "Open in Databricks": the run page when known, else the job or pipeline page. */
import type { StreamInfo } from '../../store/types.js';
import { isSafeUrl } from '../mrkdwn.js';

export function databricksUrlFor(stream: Pick<StreamInfo, 'runPageUrl' | 'workspaceUrl' | 'workspace' | 'jobId' | 'pipelineId'> | null | undefined): string | null {
  if (!stream) return null;
  // The run page URL comes from Databricks; normalized so `<`, `>`, quotes and spaces are
  // percent-encoded before it becomes a button URL or a mrkdwn link (Slack rejects malformed URLs).
  if (isSafeUrl(stream.runPageUrl)) {
    const href = new URL(stream.runPageUrl).href;
    if (href.length <= 3000) return href;
  }
  const base = workspaceOrigin(stream.workspaceUrl) ?? legacyHost(stream.workspace);
  if (!base) return null;
  if (stream.jobId) return `${base}/jobs/${encodeURIComponent(stream.jobId)}`;
  if (stream.pipelineId) return `${base}/pipelines/${encodeURIComponent(stream.pipelineId)}`;
  return null;
}

/** The workspace's origin (scheme, host, port) from its URL, or null when it is no http(s) URL. */
function workspaceOrigin(url: string | undefined): string | null {
  if (!isSafeUrl(url)) return null;
  return new URL(url).origin;
}

/**
 * Streams registered before `workspaceUrl` carry only `workspace`: a host there (it has a dot) still
 * links; a name (`prod`, `demo`) is no host, and a link to `https://prod/…` would lead nowhere.
 */
function legacyHost(workspace: string | undefined): string | null {
  const host = workspace?.trim().replace(/^https?:\/\//, '').replace(/\/$/, '');
  if (!host || !host.includes('.') || !/^[a-z0-9.-]+(:\d+)?$/i.test(host)) return null;
  return `https://${host}`;
}
