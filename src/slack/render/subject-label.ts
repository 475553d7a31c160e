/**
 * What an incident is about, as alerts say it: a streaming query by its name, or a job / pipeline
 * (stream entries `job-<id>` / `pipeline-<id>`) by its name with the id as secondary text, since
 * people know their jobs by name but Databricks URLs and `/stream status job <id>` take the id.
 * A progress source's health entry (`source-<id>`) reads "source `prod.progress`".
 */
import { escapeMrkdwn, inlineCode } from '../mrkdwn.js';

const HOST = /^(job|pipeline)-(.+)$/;

/** mrkdwn, escaped, for a job or pipeline entry: "`nightly-orders` (job 912…)", or "job `912…`" when it has no name; null for a query. */
export function hostLabel(queryId: string, name: string | null | undefined): string | null {
  if (queryId.startsWith('source-')) return `source ${inlineCode(name || queryId.slice('source-'.length))}`;
  const host = HOST.exec(queryId);
  if (!host) return null;
  const kind = host[1]!;
  const id = host[2]!;
  if (!name || name === `${kind} ${id}` || name === id || name === queryId) return `${kind} ${inlineCode(id)}`;
  return `${inlineCode(name)} (${kind} ${escapeMrkdwn(id)})`;
}

/** The status-line subject: "query `orders`", or the job / pipeline label. */
export function subjectLabel(queryId: string, name: string): string {
  return hostLabel(queryId, name) ?? `query ${inlineCode(name)}`;
}
