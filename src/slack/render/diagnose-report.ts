/**
 * `/stream diagnose`: the engine's report on pasted or shared progress JSON, per query: health,
 * incidents with their top cause and first advice, and what was skipped while reading the input.
 */
import type { KnownBlock } from '@slack/types';
import type { DiagnoseOutput, Incident, QuerySnapshot } from '../../diagnosis/types.js';
import { formatBatchVsTrigger, formatSeconds, healthEmoji, kindLabel } from '../format.js';
import { SLACK_LIMITS, capBlocks, contextBlock, fallbackText, headerBlock, moreLine, sectionBlock } from '../limits.js';
import { truncateText } from '../../util/truncate-text.js';
import { escapeMrkdwn, inlineCode, NAME_MAX_CHARS, nameCode } from '../mrkdwn.js';
import { causeLabel } from './cause-labels.js';
import { metricFields } from './incident-metrics.js';
import type { RenderedMessage } from './types.js';

export interface DiagnoseReportOptions {
  nowMs: number;
  /** Progress reports read. */
  records: number;
  /** Lines the reader skipped, with why (shown capped). */
  warnings: string[];
  /** "the pasted text" or the file name. */
  inputLabel: string;
  /**
   * Incidents listed per query.
   * @defaultValue 5
   */
  maxIncidentsPerQuery?: number;
  /**
   * Per query id: reports the engine took (judged on; not those it skipped), its latest figures (a
   * query with too few to judge says so), and the reports it did not take as they came
   * (`QueryTracker.irregular`), told per kind with the warnings. @defaultValue none
   */
  seen?: ReadonlyMap<string, { reports: number; snapshot: QuerySnapshot; irregular?: SkippedReports }>;
}

/** What the engine did not take as it came, per query (the shape of `QueryTracker.irregular`). */
export interface SkippedReports {
  /** Skipped: older than a report already read. */
  older: number;
  /** Skipped: the very same report again. */
  duplicate: number;
  /** Kept, at a time the batches around them allow: dated out of line with their batchId. */
  misdated: number;
}

/** Reports a query needs before "no incidents" means it keeps up: the detectors judge trends over about 8 batches. */
const JUDGED_AFTER_REPORTS = 8;

function reportCount(n: number): string {
  return n === 1 ? '1 report' : `${n} reports`;
}

/** One line per kind of report a query's tracker did not take as it came; mrkdwn, the name in a code span. */
function skippedLines(query: string, skipped: SkippedReports): string[] {
  const { older, duplicate, misdated } = skipped;
  const lines: string[] = [];
  if (older > 0) lines.push(`${reportCount(older)} of ${query} came before ones already read and ${older === 1 ? 'was' : 'were'} skipped`);
  if (duplicate > 0) lines.push(`${reportCount(duplicate)} of ${query} repeated one already read and ${duplicate === 1 ? 'was' : 'were'} skipped`);
  if (misdated > 0) {
    lines.push(
      `${reportCount(misdated)} of ${query} ${misdated === 1 ? 'was' : 'were'} dated out of line with ${misdated === 1 ? 'its batch' : 'their batches'} (after a later batch's time); counted, at the time the batches around ${misdated === 1 ? 'it allow' : 'them allow'}`,
    );
  }
  return lines;
}

/** A query with no incident and too few reports to say it keeps up: how many, and what the latest said. */
function tooFewLine(reports: number, snapshot: QuerySnapshot): string {
  const latest: string[] = [];
  if (snapshot.timeBehindSec != null) latest.push(`${formatSeconds(snapshot.timeBehindSec)} behind`);
  if (snapshot.batchDurationMs != null) latest.push(`batch ${formatBatchVsTrigger(snapshot.batchDurationMs, snapshot.triggerMs)}`);
  const last = latest.length > 0 ? ` The latest: ${latest.join(' · ')}.` : '';
  return `No incident in ${reports} report${reports === 1 ? '' : 's'}, too few to tell whether it keeps up (its trends take about ${JUDGED_AFTER_REPORTS} batches): paste more of \`recentProgress\`.${last}`;
}

function incidentLines(incident: Incident, nowMs: number): string {
  const state = incident.resolvedAt ? 'resolved' : 'open';
  const lines = [
    `*${escapeMrkdwn(kindLabel(incident.kind))}* (${incident.severity}, ${state}${incident.openedAtBatchId != null ? `, from batch ${incident.openedAtBatchId}` : ''}): ${escapeMrkdwn(incident.summary)}`,
  ];
  const numbers = metricFields(incident.metrics, nowMs).map((field) => field.replace('\n', ' ')).slice(0, 4);
  if (numbers.length > 0) lines.push(`   ${numbers.join(' · ')}`);
  const cause = [...incident.causes].sort((a, b) => b.confidence - a.confidence)[0];
  if (cause) lines.push(`   _Why:_ ${escapeMrkdwn(causeLabel(cause.code))}: ${escapeMrkdwn(cause.evidence)}`);
  const advice = incident.advice[0];
  if (advice) {
    const setting = advice.setting ? ` ${inlineCode(`${advice.setting}${advice.value != null ? ` = ${advice.value}` : ''}`)}` : '';
    lines.push(`   _Try:_ ${escapeMrkdwn(advice.text)}${setting}`);
  }
  return lines.join('\n');
}

export function renderDiagnoseReport(output: DiagnoseOutput, options: DiagnoseReportOptions): RenderedMessage {
  const blocks: KnownBlock[] = [headerBlock(`🩺 Diagnosis of ${options.records} progress report${options.records === 1 ? '' : 's'}`)];
  const maxIncidents = options.maxIncidentsPerQuery ?? 5;
  if (output.queries.length === 0) {
    blocks.push(sectionBlock(`No progress reports found in ${escapeMrkdwn(options.inputLabel)}. Paste \`StreamingQueryProgress\` JSON (one object, an array, or JSON Lines) after \`/stream diagnose\`, or share a \`.json\`/\`.jsonl\` file in this channel and run \`/stream diagnose\`.`));
  }
  let shownQueries = 0;
  for (const query of output.queries) {
    if (blocks.length >= SLACK_LIMITS.messageBlocks - 3) break;
    shownQueries += 1;
    // In a code span: a name is the user's text, and `*`, `_` or `~` in it would turn into formatting.
    const title = `${healthEmoji(query.health)} ${nameCode(query.name || query.id)} · ${query.health}${query.name ? ` · id ${nameCode(query.id)}` : ''}`;
    if (query.incidents.length === 0) {
      const seen = options.seen?.get(query.id);
      const fewReports = seen !== undefined && seen.reports < JUDGED_AFTER_REPORTS;
      // Without a verdict, no green: the health shown is the engine's, which has nothing against it yet.
      const verdict = fewReports ? `⚪ ${nameCode(query.name || query.id)} · not judged yet${query.name ? ` · id ${nameCode(query.id)}` : ''}` : title;
      blocks.push(sectionBlock(`${verdict}\n${fewReports ? tooFewLine(seen.reports, seen.snapshot) : 'No incidents: keeping up.'}`));
      continue;
    }
    const shown = query.incidents.slice(0, maxIncidents).map((incident) => incidentLines(incident, options.nowMs));
    if (query.incidents.length > maxIncidents) shown.push(moreLine(query.incidents.length - maxIncidents, 'incident'));
    blocks.push(sectionBlock(`${title}\n${shown.join('\n')}`));
  }
  if (shownQueries < output.queries.length) blocks.push(contextBlock([moreLine(output.queries.length - shownQueries, 'query', 'queries')]));
  // The engine's skips first (they change the verdict), per query and kind; then the reader's, escaped.
  const skipped: string[] = [];
  for (const query of output.queries) {
    const irregular = options.seen?.get(query.id)?.irregular;
    if (!irregular) continue;
    const label = query.name ? `query ${nameCode(query.name)} (${nameCode(query.id)})` : `query ${nameCode(query.id)}`;
    skipped.push(...skippedLines(label, irregular));
  }
  const warningCount = skipped.length + options.warnings.length;
  if (warningCount > 0) {
    const listed = [...skipped.slice(0, 5), ...options.warnings.slice(0, Math.max(0, 5 - skipped.length)).map((warning) => escapeMrkdwn(warning))].map((warning) => `• ${warning}`);
    if (warningCount > 5) listed.push(moreLine(warningCount - 5, 'warning'));
    blocks.push(contextBlock([`⚠️ Skipped while reading ${escapeMrkdwn(options.inputLabel)}:\n${listed.join('\n')}`]));
  }
  const worst = output.queries.find((query) => query.health === 'critical') ?? output.queries.find((query) => query.health === 'warning');
  const text = worst
    ? `Diagnosis: ${escapeMrkdwn(truncateText(worst.name || worst.id, NAME_MAX_CHARS))} is ${worst.health} (${worst.incidents.length} incident${worst.incidents.length === 1 ? '' : 's'})`
    : output.queries.length === 0
      ? `Diagnosis: no progress reports found in ${escapeMrkdwn(options.inputLabel)}`
      : [...(options.seen?.values() ?? [])].some((seen) => seen.reports < JUDGED_AFTER_REPORTS)
        ? `Diagnosis of ${options.records} progress report${options.records === 1 ? '' : 's'}: no incident, too few reports to tell whether ${output.queries.length === 1 ? 'it keeps' : 'they keep'} up`
        : `Diagnosis of ${options.records} progress reports: ${output.queries.length} quer${output.queries.length === 1 ? 'y' : 'ies'}, all keeping up`;
  return { text: fallbackText(text), blocks: capBlocks(blocks) };
}
