/**
 * What an incident is about, as the status line says it: a streaming query by its name, or a job /
 * pipeline (stream entries `job-<id>` / `pipeline-<id>`) by its name with the id as secondary text,
 * since people know their jobs by name but Databricks URLs and the CLI take the id.
 */
import { escapeMrkdwn, inlineCode } from '../mrkdwn.js';

const HOST = /^(job|pipeline)-(.+)$/;

/** mrkdwn, escaped: "query `orders`", "job `nightly-orders` (id 912…)", "job `912…`". */
export function subjectLabel(queryId: string, name: string): string {
  const host = HOST.exec(queryId);
  if (!host) return `query ${inlineCode(name)}`;
  const [, kind, id] = host as unknown as [string, 'job' | 'pipeline', string];
  if (!name || name === `${kind} ${id}` || name === id || name === queryId) return `${kind} ${inlineCode(id)}`;
  return `${kind} ${inlineCode(name)} (id ${escapeMrkdwn(id)})`;
}
