/** The link behind "Open in Databricks": the run page when known, else the job or pipeline page. */
import type { StreamInfo } from '../../store/types.js';
import { isSafeUrl } from '../mrkdwn.js';

export function databricksUrlFor(stream: Pick<StreamInfo, 'runPageUrl' | 'workspace' | 'jobId' | 'pipelineId'> | null | undefined): string | null {
  if (!stream) return null;
  // The run page URL comes from Databricks; normalized so `<`, `>`, quotes and spaces are
  // percent-encoded before it becomes a button URL or a mrkdwn link (Slack rejects malformed URLs).
  if (isSafeUrl(stream.runPageUrl)) {
    const href = new URL(stream.runPageUrl).href;
    if (href.length <= 3000) return href;
  }
  const host = stream.workspace?.trim();
  if (!host || !/^[a-z0-9.-]+(:\d+)?$/i.test(host.replace(/^https?:\/\//, '').replace(/\/$/, ''))) return null;
  const base = host.startsWith('http') ? host.replace(/\/$/, '') : `https://${host.replace(/\/$/, '')}`;
  if (stream.jobId) return `${base}/jobs/${encodeURIComponent(stream.jobId)}`;
  if (stream.pipelineId) return `${base}/pipelines/${encodeURIComponent(stream.pipelineId)}`;
  return null;
}
