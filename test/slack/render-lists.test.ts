import { describe, expect, it } from 'vitest';
import { renderStatus } from '../../src/slack/render/status-table.js';
import { renderDigest } from '../../src/slack/render/digest.js';
import { renderAppHome } from '../../src/slack/render/app-home.js';
import { renderDiagnoseReport } from '../../src/slack/render/diagnose-report.js';
import { renderHelp, renderUsage } from '../../src/slack/render/help.js';
import type { StreamView } from '../../src/slack/render/types.js';
import { blockKitViolations, blockText, hasRawInjection } from './helpers/block-kit-limits.js';
import { LAG_INCIDENT, NOW, STATE_INCIDENT, lagRecord, stateRecord, streams } from './helpers/incidents.js';

function manyStreams(count: number): StreamView[] {
  return Array.from({ length: count }, (_, index) => ({
    queryId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    name: `ingest-${index}-${'segment'.repeat(index % 7)}`,
    health: index % 17 === 0 ? 'critical' : index % 5 === 0 ? 'warning' : 'ok',
    timeBehindSec: (index * 37) % 900,
    batchDurationMs: 5_000 + index * 10,
    triggerMs: 30_000,
    stateRows: index * 1000,
    lastProgressAt: NOW - 30_000,
  }));
}

describe('status table', () => {
  it('says how far behind a stream is now when its last report is long past', () => {
    const slow: StreamView = { ...streams()[0]!, health: 'critical', timeBehindSec: 31 * 60 + 14, lastProgressAt: NOW - (21 * 60 + 47) * 1000 };
    const line = blockText(renderStatus([slow], { nowMs: NOW, scopeLabel: '#data-alerts' }).blocks);
    expect(line).toContain('at least 53m 01s behind now (31m 14s at the last report)');
    // Fresh, or nothing behind: the report's own figure.
    const fresh = blockText(renderStatus([{ ...slow, lastProgressAt: NOW - 20_000 }], { nowMs: NOW, scopeLabel: '#data-alerts' }).blocks);
    expect(fresh).toContain('31m 14s behind');
    expect(fresh).not.toContain('at least');
    const caughtUp = blockText(renderStatus([{ ...slow, health: 'ok', timeBehindSec: 0 }], { nowMs: NOW, scopeLabel: '#data-alerts' }).blocks);
    expect(caughtUp).not.toContain('at least');
  });

  it('lists streams worst first with their numbers and a link to the run', () => {
    const message = renderStatus(streams(), { nowMs: NOW, scopeLabel: '#data-alerts' });
    const text = blockText(message.blocks);
    const order = ['orders-enrich', 'payments-dedupe', 'clickstream-sessionize'].map((name) => text.indexOf(name));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(text).toContain('🔴 *<https://adb-1234567890123456.7.azuredatabricks.net/jobs/812/runs/99120|orders-enrich>* · 14m 20s behind · batch 48s vs 30s trigger (159%)');
    expect(text).toContain('48.9M state rows');
    expect(text).toContain('🔴 1 critical · 🟠 1 warning · 🟢 1 ok');
    expect(message.text).toContain('#data-alerts');
  });

  it('gives a batch many triggers long as a multiple, as the alert does', () => {
    const [first, ...rest] = streams();
    const stuck = { ...first!, batchDurationMs: 552_000, triggerMs: 10_000 };
    expect(blockText(renderStatus([stuck, ...rest], { nowMs: NOW, scopeLabel: '#data-alerts' }).blocks)).toContain('batch 9m 12s, 55× the 10s trigger');
  });

  it('stays within 50 blocks for 500 streams and says how many it left out', () => {
    const message = renderStatus(manyStreams(500), { nowMs: NOW, scopeLabel: 'all streams' });
    expect(blockKitViolations(message.blocks)).toEqual([]);
    expect(blockText(message.blocks)).toContain('460 more streams not shown');
  });

  it('explains how to add a stream when there is none', () => {
    expect(blockText(renderStatus([], { nowMs: NOW, scopeLabel: '#x' }).blocks)).toContain('/stream watch');
  });

  it('does not send people to `status all` when that is what they asked for', () => {
    const here = renderStatus([], { nowMs: NOW, scopeLabel: 'this channel' });
    const all = renderStatus([], { nowMs: NOW, scopeLabel: 'all streams', scope: 'all' });
    expect(blockText(here.blocks)).toContain('/stream status all');
    expect(blockText(all.blocks)).not.toContain('/stream status all');
    expect(all.text).toBe('No streams yet · stream health of all streams');
  });
});

describe('digest', () => {
  it('has overall health, streams worst first, and the last 24 h of incidents with durations', () => {
    const resolved = lagRecord({
      id: 'old',
      state: 'resolved',
      openedAt: NOW - 6 * 3_600_000,
      resolvedAt: NOW - 6 * 3_600_000 + 42 * 60_000,
      incident: { ...LAG_INCIDENT, resolvedAt: 'x' },
    });
    const tooOld = lagRecord({ id: 'ancient', state: 'resolved', openedAt: NOW - 50 * 3_600_000, resolvedAt: NOW - 49 * 3_600_000 });
    const message = renderDigest({
      channelLabel: '#data-alerts',
      nowMs: NOW,
      streams: streams(),
      incidents: [resolved, lagRecord({ acknowledgedBy: 'U024BE7LH' }), stateRecord(), tooOld],
      withChart: true,
    });
    const text = blockText(message.blocks);
    expect(message.blocks[0]).toMatchObject({ type: 'header', text: { text: '📊 Daily stream health · #data-alerts' } });
    expect(text).toContain('🔴 *Streams in trouble*');
    expect(text).toContain('*Incidents active in the last 24 h* · 3 (2 still open)');
    expect(text).toContain('🔴 `orders-enrich` · Falling behind · open for 47m 30s · ack <@U024BE7LH>');
    expect(text).toContain('🟠 `payments-dedupe` · State growing without bound · open for 5h 55m');
    expect(text).toContain('🟢 `orders-enrich` · Falling behind · lasted 42m');
    // Opened inside the window: the time alone; before it (resolved inside it): with its date.
    expect(text).toContain(`lasted 42m · opened <!date^${Math.floor((NOW - 6 * 3_600_000) / 1000)}^{time}|`);
    const straddling = lagRecord({ id: 'long', state: 'resolved', openedAt: NOW - 30 * 3_600_000, resolvedAt: NOW - 20 * 3_600_000 });
    const again = blockText(renderDigest({ channelLabel: '#data-alerts', nowMs: NOW, streams: streams(), incidents: [straddling] }).blocks);
    expect(again).toContain(`lasted 10h · opened <!date^${Math.floor((NOW - 30 * 3_600_000) / 1000)}^{date_short_pretty} {time}|`);
    expect(text).toContain('chart of time behind');
    expect(message.text).toMatch(/3 incidents active in 24 h$/);
    expect(blockKitViolations(message.blocks)).toEqual([]);
  });

  it('lists the worst incidents first, so the cut at 20 never drops an open critical one', () => {
    const critical = lagRecord({ id: 'old-critical', queryName: 'payments-ingest', openedAt: NOW - 3 * 86_400_000 });
    expect(critical.incident.severity).toBe('critical');
    const warnings = Array.from({ length: 30 }, (_, index) => stateRecord({ id: `w${index}`, queryName: `warn-${index}`, openedAt: NOW - index * 60_000 }));
    const text = blockText(renderDigest({ channelLabel: '#data-alerts', nowMs: NOW, streams: streams(), incidents: [...warnings, critical] }).blocks);
    expect(text).toContain('*Incidents active in the last 24 h* · 31 (31 still open)');
    expect(text).toContain('🔴 `payments-ingest` · Falling behind · open for 3d');
    expect(text.indexOf('payments-ingest')).toBeLessThan(text.indexOf('warn-0'));
  });

  it('stays within the text Slack takes in one message when every name is long, and counts what it leaves out', () => {
    const long = manyStreams(25).map((stream, index) => ({ ...stream, name: `warehouse-ingest-${index}-${'x'.repeat(140)}`, runPageUrl: `https://adb-1234567890123456.7.azuredatabricks.net/jobs/${index}/runs/${index * 1000}` }));
    const incidents = Array.from({ length: 20 }, (_, index) => stateRecord({ id: `i${index}`, queryName: `warehouse-ingest-${index}-${'y'.repeat(250)}`, openedAt: NOW - index * 60_000 }));
    const message = renderDigest({ channelLabel: '#data-alerts', nowMs: NOW, streams: long, incidents });
    expect(blockKitViolations(message.blocks)).toEqual([]);
    const text = blockText(message.blocks);
    const shownStreams = long.filter((stream) => text.includes(stream.name!)).length;
    const shownIncidents = incidents.filter((record) => text.includes(record.queryName!)).length;
    expect(shownStreams).toBeGreaterThan(5);
    expect(text).toContain(`${25 - shownStreams} more streams not shown`);
    expect(text).toContain(`${20 - shownIncidents} more incidents not shown`);
  });

  it('stays ≤ 50 blocks with 300 streams and 200 incidents and counts the rest', () => {
    const incidents = Array.from({ length: 200 }, (_, index) => stateRecord({ id: `i${index}`, queryName: `q-${index}`, openedAt: NOW - index * 60_000 }));
    const message = renderDigest({ channelLabel: '#big', nowMs: NOW, streams: manyStreams(300), incidents });
    expect(blockKitViolations(message.blocks)).toEqual([]);
    const text = blockText(message.blocks);
    expect(text).toContain('275 more streams not shown');
    expect(text).toContain('180 more incidents not shown');
  });
});

describe('App Home', () => {
  it('shows open incidents, silences with Unsilence, and watches for the viewer', () => {
    const view = renderAppHome({
      userId: 'U024BE7LH',
      nowMs: NOW,
      openIncidents: [{ ...lagRecord(), channel: 'C0DATAALRT' }, stateRecord()],
      silences: [{ queryId: stateRecord().queryId, name: 'payments-dedupe', untilMs: NOW + 3_600_000, byUser: 'U1ALICE' }],
      watches: [{ target: 'orders-enrich', kind: 'query', channel: 'C0DATAALRT' }, { target: '812', kind: 'job', channel: 'C0DATAALRT' }],
    });
    expect(view.type).toBe('home');
    const text = blockText(view.blocks as never);
    expect(text).toContain('Open incidents (2)');
    expect(text).toContain('`orders-enrich` · Falling behind · open for 47m 30s · <#C0DATAALRT>');
    expect(text).toContain('🔕 `payments-dedupe` until');
    expect(text).toContain('job `812` → <#C0DATAALRT>');
    expect(JSON.stringify(view.blocks)).toContain('"action_id":"home_unsilence"');
    expect(blockKitViolations(view.blocks as never, 100)).toEqual([]);
  });
});

describe('diagnose report', () => {
  it('summarises each query with its incidents, cause and advice, and lists skipped input', () => {
    const message = renderDiagnoseReport(
      {
        queries: [
          { id: 'a1b2', name: 'orders-enrich', health: 'critical', incidents: [LAG_INCIDENT] },
          { id: 'c3d4', name: null, health: 'ok', incidents: [] },
          { id: 'e5f6', name: '<!channel>', health: 'warning', incidents: [STATE_INCIDENT] },
        ],
      },
      { nowMs: NOW, records: 240, warnings: ['line 17: not JSON (Unexpected token } in JSON at position 88)', 'line 18: <!here>'], inputLabel: 'progress.jsonl' },
    );
    const text = blockText(message.blocks, 'mrkdwn');
    expect(blockText(message.blocks)).toContain('Diagnosis of 240 progress reports');
    expect(text).toContain('*Falling behind* (critical, open, from batch 18423)');
    expect(text).toContain('_Try:_ Cap each batch');
    expect(text).toContain('`maxOffsetsPerTrigger = 1100000`');
    expect(text).toContain('`c3d4` · ok');
    expect(text).toContain('line 17: not JSON');
    expect(hasRawInjection(text)).toBe(false);
    expect(message.text).toBe('Diagnosis: orders-enrich is critical (1 incident)');
  });

  it('shows a query name as text, not as formatting, and cuts a very long one', () => {
    const message = renderDiagnoseReport(
      { queries: [{ id: 'a1b2', name: '*evil* _x_ ~y~ `tick`', health: 'ok', incidents: [] }, { id: 'c3d4', name: 'n'.repeat(5_000), health: 'ok', incidents: [] }] },
      { nowMs: NOW, records: 2, warnings: [], inputLabel: 'progress.jsonl' },
    );
    const text = blockText(message.blocks, 'mrkdwn');
    expect(text).toContain('`*evil* _x_ ~y~ ˋtickˋ` · ok');
    expect(text).not.toContain('n'.repeat(200));
    expect(text).toContain(`\`${'n'.repeat(149)}…\` · ok`);
  });

  it('says nothing could be read, not that everything keeps up, when no report parsed', () => {
    const message = renderDiagnoseReport(
      { queries: [] },
      { nowMs: NOW, records: 0, warnings: ['line 1: malformed JSON'], inputLabel: 'the pasted text' },
    );
    expect(message.text).toBe('Diagnosis: no progress reports found in the pasted text');
    expect(blockText(message.blocks)).toContain('No progress reports found in the pasted text');
  });
});

describe('help and usage', () => {
  it('lists every subcommand and gives a one-line usage for mistakes', () => {
    const help = blockText(renderHelp().blocks);
    for (const name of ['status', 'tune', 'diagnose', 'mute', 'unmute', 'ack', 'watch', 'unwatch', 'digest', 'help']) {
      expect(help).toContain(`/stream ${name}`);
    }
    expect(renderUsage('say for how long', 'mute').text).toBe('say for how long. Usage: `/stream mute &lt;query&gt; [#channel] &lt;duration&gt;`');
  });
});
