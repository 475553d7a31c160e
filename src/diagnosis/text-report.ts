/**
 * The people-facing report of `streamdoctor diagnose --format text`: one short block per query,
 * worst first, readable in an 80-column terminal. Plain text; no colour codes so it pipes cleanly.
 */
import { TUNING } from './engine-options.js';
import * as fmt from './format.js';
import type { DiagnoseOutput, Incident, QueryReport, QuerySnapshot } from './types.js';

const HEALTH_LABEL = { critical: 'CRITICAL', warning: 'WARNING', ok: 'OK' } as const;

const BACKLOG_UNREPORTED = `these reports carry no backlog figure (no latestOffset, no source metrics, as Spark 3.0 and earlier print) and every batch reads the same capped count, so how far behind the query is cannot be read: lag shows here once reads rise into the cap and stay there for ${TUNING.capBoundBatches} batches and ${fmt.seconds(TUNING.capBoundMinMs / 1000)} or more (longer when the rise is within the reads' noise; ${fmt.seconds(TUNING.catchUpBudgetSec)} after a restart or a slow batch, whose backlog it may be draining, or sooner after a restart once the backlog estimated from the arrivals before it will not drain within that), or ${TUNING.capBoundBatches} batches after the batches first slowed when those at the cap stay slower than the input arrived before (capacity lost). Spark 3.2+ and Databricks report avgOffsetsBehindLatest.`;

/**
 * Characters a terminal acts on rather than shows: C0 controls (a newline in a query name would start
 * a forged line of the report, ESC starts escape sequences and OSC 8 links), DEL, C1 controls, and
 * the bidirectional overrides and isolates that reorder what is shown.
 */
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` from the input made safe to show on a terminal: each unshowable character becomes U+FFFD (�). */
export function shownText(text: string): string {
  return text.replace(UNSHOWABLE, '\uFFFD');
}

/** `snapshots` (by query id) add a line of key numbers under each query's title. */
export function renderTextReport(output: DiagnoseOutput, snapshots?: ReadonlyMap<string, QuerySnapshot>): string {
  if (output.queries.length === 0) return 'No queries in the input.\n';
  const counts = { critical: 0, warning: 0, ok: 0 };
  for (const query of output.queries) counts[query.health] += 1;
  const header = `${output.queries.length} ${output.queries.length === 1 ? 'query' : 'queries'}: ${counts.critical} critical, ${counts.warning} warning, ${counts.ok} ok`;
  // Names, ids and evidence come from the input: every line is made safe to show (shownText).
  return `${header}\n\n${output.queries.map((query) => renderQuery(query, snapshots?.get(query.id))).join('\n')}`;
}

function renderQuery(query: QueryReport, snapshot: QuerySnapshot | undefined): string {
  const title = query.name === null ? query.id : `${query.name} (${query.id})`;
  const lines = [`${HEALTH_LABEL[query.health].padEnd(8)} ${title}`];
  if (snapshot) lines.push(`  ${keyNumbers(snapshot)}`);
  if (snapshot?.backlogUnreported) lines.push(`  Note: ${BACKLOG_UNREPORTED}`);
  const open = query.incidents.filter((incident) => incident.resolvedAt === null);
  const resolved = query.incidents.filter((incident) => incident.resolvedAt !== null);
  if (open.length === 0 && resolved.length === 0) lines.push('  No incidents.');
  for (const incident of open) lines.push(...renderIncident(incident, true));
  if (resolved.length > 0) {
    lines.push(`  Resolved (${resolved.length}):`);
    for (const incident of resolved) {
      lines.push(
        `    - ${incident.kind}: ${incident.summary} [${span(incident)}]`,
      );
    }
  }
  return `${lines.map(shownText).join('\n')}\n`;
}

function renderIncident(incident: Incident, detailed: boolean): string[] {
  const lines = [`  ● ${incident.kind} (${incident.severity}) since ${where(incident.openedAtBatchId, incident.openedAt)}`];
  lines.push(`    ${incident.summary}`);
  if (!detailed) return lines;
  if (incident.causes.length > 0) {
    lines.push('    Why:');
    for (const cause of incident.causes) {
      lines.push(`      ${cause.confidence.toFixed(2)} ${cause.code}: ${cause.evidence}`);
    }
  }
  if (incident.advice.length > 0) {
    lines.push('    What to change:');
    for (const advice of incident.advice) {
      const setting = advice.setting ? ` [${advice.setting}${advice.value ? ` = ${advice.value}` : ''}]` : '';
      lines.push(`      - ${advice.text}${setting}`);
    }
  }
  return lines;
}

function keyNumbers(s: QuerySnapshot): string {
  const parts: string[] = [];
  if (s.lastBatchId !== null) parts.push(`batch ${s.lastBatchId}`);
  if (s.lastProgressAt) parts.push(`at ${s.lastProgressAt}`);
  if (s.timeBehindSec !== null) {
    parts.push(
      s.timeBehindEstimated && s.filesWaiting != null
        ? `about ${fmt.seconds(s.timeBehindSec)} behind (estimated from ${fmt.count(s.filesWaiting)} files waiting)`
        : `${fmt.seconds(s.timeBehindSec)} behind`,
    );
  } else if (s.filesWaiting != null) {
    parts.push(`${fmt.filesWaiting(s.filesWaiting, s.filesWaitingTrendPerMin ?? null)} (time behind unknown for this source)`);
  }
  if (s.batchDurationMs !== null) {
    parts.push(`batch ${fmt.ms(s.batchDurationMs)}${s.triggerMs ? ` of a ${fmt.ms(s.triggerMs)} trigger` : ''}`);
  }
  if (s.arrivalRate !== null) parts.push(`${fmt.rate(s.arrivalRate)} in`);
  if (s.stateRows !== null) parts.push(`${fmt.count(s.stateRows)} state rows`);
  return parts.join(', ');
}

function where(batchId: number | null, at: string): string {
  return batchId === null ? at : `batch ${batchId} (${at})`;
}

function span(incident: Incident): string {
  return `${where(incident.openedAtBatchId, incident.openedAt)} → ${where(incident.resolvedAtBatchId, incident.resolvedAt ?? '')}`;
}
