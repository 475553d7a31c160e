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
  /** Per query id: reports read and its latest figures (a query with too few to judge says so). @defaultValue none */
  seen?: ReadonlyMap<string, { reports: number; snapshot: QuerySnapshot }>;
}

/** Reports a query needs before "no incidents" means it keeps up: the detectors judge trends over about 8 batches. */
const JUDGED_AFTER_REPORTS = 8;

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
  if (options.warnings.length > 0) {
    const listed = options.warnings.slice(0, 5).map((warning) => `• ${escapeMrkdwn(warning)}`);
    if (options.warnings.length > 5) listed.push(moreLine(options.warnings.length - 5, 'warning'));
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
