/**
 * `/stream diagnose`: reads progress JSON (pasted, or a file shared in the channel), runs the engine
 * and renders its report. The file is downloaded with the bot token only from Slack's own hosts
 * (or the configured local Slack), and only up to a size cap.
 */
import { StreamDoctorError } from '../../util/errors.js';
import type { webApi } from '@slack/bolt';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Diagnosis } from '../../diagnosis/engine.js';
import { ProgressInputReader, type ProgressRecord } from '../../progress/progress-input-reader.js';
import { sparkOrder } from '../../progress/spark-order.js';
import type { Progress } from '../../progress/types.js';
import { nowOf, type SlackDeps } from '../deps.js';
import { renderDiagnoseReport } from '../render/diagnose-report.js';
import type { RenderedMessage } from '../render/types.js';

export const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;
export const DEFAULT_MAX_RECORDS = 50_000;

export type DiagnoseInputErrorCode = 'streamdoctor_diagnose_no_input' | 'streamdoctor_diagnose_file_too_large' | 'streamdoctor_diagnose_file_unreadable' | 'streamdoctor_diagnose_file_host';

export class DiagnoseInputError extends StreamDoctorError {
  declare readonly code: DiagnoseInputErrorCode;
  constructor(code: DiagnoseInputErrorCode, message: string) {
    super(code, message);
  }
}

/** Characters read between yields, so a 20 MiB file never holds the event loop for long. */
const CHUNK_CHARS = 256 * 1024;

/** Reports fed to the engine between yields, so a 50,000-report input never holds the event loop for long. */
const FEED_REPORTS = 2_000;

/**
 * Reads and diagnoses `text` in chunks, yielding to the event loop between them: other Slack requests
 * keep being acknowledged within 3 s while a large shared file is diagnosed.
 *
 * The engine takes a query's reports in order and skips one older than what it has read. The input
 * is in memory (at most the file cap), so each query's reports are sorted as Spark ran them
 * (`sparkOrder`, as the CLI does for a query read out of order) before they are fed: a newest-first
 * export is judged as the CLI judges it. What the engine still did not take as it came (duplicates,
 * misdated) is told per query and kind, and "too few to judge" counts the reports it took.
 */
export async function diagnoseText(text: string, deps: SlackDeps, inputLabel: string): Promise<RenderedMessage> {
  const maxRecords = deps.diagnose?.maxRecords ?? DEFAULT_MAX_RECORDS;
  const warnings: string[] = [];
  const pending: ProgressRecord[] = [];
  const reader = new ProgressInputReader(
    (record) => pending.push(record),
    (warning) => warnings.push(warning),
  );
  let used = 0;
  let dropped = 0;
  // Per query id, in the order queries first appear: its reports as given.
  const reportsOf = new Map<string, Progress[]>();
  const drain = () => {
    for (const record of pending) {
      if (used < maxRecords) {
        const list = reportsOf.get(record.progress.id);
        if (list) list.push(record.progress);
        else reportsOf.set(record.progress.id, [record.progress]);
        used += 1;
      } else dropped += 1;
    }
    pending.length = 0;
  };
  for (let offset = 0; offset < text.length; offset += CHUNK_CHARS) {
    reader.push(text.slice(offset, offset + CHUNK_CHARS));
    drain();
    if (offset + CHUNK_CHARS < text.length) await yieldToEventLoop();
  }
  reader.end();
  drain();
  if (dropped > 0) warnings.unshift(`only the first ${maxRecords} of ${used + dropped} progress reports were diagnosed`);
  // Stalls are judged at the latest batch in the input, not at "now": pasted history is usually old.
  const diagnosis = new Diagnosis();
  const given = new Map<string, number>();
  let fed = 0;
  for (const [id, list] of reportsOf) {
    given.set(id, list.length);
    for (const progress of sparkOrder(list)) {
      diagnosis.add(progress);
      if (++fed % FEED_REPORTS === 0 && fed < used) await yieldToEventLoop();
    }
  }
  const output = diagnosis.finish();
  const seen = new Map(
    [...diagnosis.trackers].map(([id, tracker]) => {
      const irregular = { ...tracker.irregular };
      // Taken: what the engine judged on. A misdated report is kept (at a time its batches allow).
      const reports = Math.max(0, (given.get(id) ?? 0) - irregular.older - irregular.duplicate);
      return [id, { reports, snapshot: tracker.snapshot(), irregular }] as const;
    }),
  );
  return renderDiagnoseReport(output, { nowMs: nowOf(deps), records: used, warnings, inputLabel, seen });
}

function allowedHost(url: URL, deps: SlackDeps, apiBase: string | undefined): boolean {
  const host = url.hostname.toLowerCase();
  if (url.protocol === 'https:' && (host === 'slack.com' || host.endsWith('.slack.com') || host.endsWith('.slack-edge.com'))) return true;
  if (deps.fileHosts?.some((allowed) => allowed.toLowerCase() === url.host.toLowerCase())) return true;
  if (apiBase) {
    try {
      return new URL(apiBase).host === url.host;
    } catch {
      return false;
    }
  }
  return false;
}

export interface DownloadedFile {
  name: string;
  text: string;
}

export async function downloadSharedFile(client: webApi.WebClient, deps: SlackDeps, fileId: string, botToken: string): Promise<DownloadedFile> {
  const maxBytes = deps.diagnose?.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const info = await client.files.info({ file: fileId });
  const file = info.file as { name?: string; size?: number; url_private_download?: string; url_private?: string } | undefined;
  const name = file?.name ?? fileId;
  if (!file) throw new DiagnoseInputError('streamdoctor_diagnose_file_unreadable', `Slack did not return file ${fileId}.`);
  if ((file.size ?? 0) > maxBytes) {
    throw new DiagnoseInputError('streamdoctor_diagnose_file_too_large', `${name} is ${(file.size! / 1048576).toFixed(1)} MiB; the limit here is ${(maxBytes / 1048576).toFixed(0)} MiB. Run \`streamdoctor diagnose ${name}\` locally instead.`);
  }
  const href = file.url_private_download ?? file.url_private;
  if (!href) throw new DiagnoseInputError('streamdoctor_diagnose_file_unreadable', `${name} has no download link.`);
  const url = new URL(href);
  if (!allowedHost(url, deps, client.slackApiUrl)) {
    throw new DiagnoseInputError('streamdoctor_diagnose_file_host', `${name} is hosted outside Slack (${url.host}); the bot token is only sent to Slack.`);
  }
  const response = await fetch(url, { headers: { authorization: `Bearer ${botToken}` }, redirect: 'error', signal: AbortSignal.timeout(20_000) });
  if (!response.ok || !response.body) throw new DiagnoseInputError('streamdoctor_diagnose_file_unreadable', `downloading ${name} failed with HTTP ${response.status}.`);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new DiagnoseInputError('streamdoctor_diagnose_file_too_large', `${name} is larger than ${(maxBytes / 1048576).toFixed(0)} MiB.`);
    chunks.push(Buffer.from(chunk));
  }
  return { name, text: Buffer.concat(chunks).toString('utf8') };
}
