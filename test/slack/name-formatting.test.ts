/**
 * Stream names with Slack's formatting characters in them, where a name is shown in bold (the status
 * line that `/stream status`, the digest and the App Home list). mrkdwn has no escape for `*`, `_`, `~`
 * or a backtick: `*orders*eu*` ends the bold after "orders" (or shows its asterisks). Rendered here by
 * the local Slack's mrkdwn reader, which places formatting marks as Slack does (at word edges).
 */
import { describe, expect, it } from 'vitest';
import { escapeHtml, mrkdwnToHtml } from '../../src/standins/slack/chat-view/mrkdwn-html.js';
import { boldName } from '../../src/slack/mrkdwn.js';
import { renderAppHome } from '../../src/slack/render/app-home.js';
import { renderDigest } from '../../src/slack/render/digest.js';
import { renderStatus, streamLine } from '../../src/slack/render/status-table.js';
import type { StreamView } from '../../src/slack/render/types.js';
import { blockText } from './helpers/block-kit-limits.js';
import { NOW } from './helpers/incidents.js';

const RUN = 'https://adb-1234567890123456.7.azuredatabricks.net/jobs/812/runs/99120';

function stream(name: string, runPageUrl?: string): StreamView {
  return { queryId: 'a1b2c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d', name, health: 'warning', timeBehindSec: 860, lastProgressAt: NOW - 31_000, ...(runPageUrl ? { runPageUrl } : {}) };
}

/** The status line's name as a reader sees it: the emoji, then the name. */
function shownName(name: string): string {
  const head = streamLine(stream(name), NOW).split(' · ')[0]!;
  return mrkdwnToHtml(head);
}

describe('a name with formatting characters in a status line', () => {
  it.each([
    'orders*eu',
    '*evil*',
    'orders _eu_',
    '~old~ orders',
    'orders `eu` v2',
    '_staging_orders',
    'orders_',
  ])('shows %j whole, as text, not as formatting', (name) => {
    // A code span cannot hold a backtick: nameCode's look-alike stands in for it, as everywhere.
    expect(shownName(name)).toBe(`🟠 <code>${escapeHtml(name.replace(/`/g, 'ˋ'))}</code>`);
  });

  // Slack renders a link inside a code span (not a code span inside a link's label); the local
  // reader reads code first, so this one is checked as mrkdwn.
  it('keeps the link to the run page, inside the code span', () => {
    expect(streamLine(stream('orders*eu', RUN), NOW).split(' · ')[0]).toBe(`🟠 \`<${RUN}|orders*eu>\``);
    expect(boldName('_tmp | `x`', RUN)).toBe(`\`<${RUN}|_tmp ¦ ˋxˋ>\``);
    expect(boldName('a*b', `${RUN}?q=\``)).toBe(`\`<${RUN}?q=%60|a*b>\``);
  });

  it('a name on several lines stays on one, in its code span', () => {
    expect(streamLine(stream('orders\neu'), NOW).split(' · ')[0]).toBe('🟠 `orders eu`');
  });

  it('is the same in /stream status, the digest and the App Home', () => {
    const odd = { ...stream('orders*eu', RUN), queryId: 'q-odd' };
    const status = blockText(renderStatus([odd], { nowMs: NOW, scopeLabel: '#data-alerts' }).blocks, 'mrkdwn');
    const digest = blockText(renderDigest({ channelLabel: '#data-alerts', nowMs: NOW, streams: [odd], incidents: [] }).blocks, 'mrkdwn');
    const home = blockText(renderAppHome({ userId: 'U024BE7LH', nowMs: NOW, openIncidents: [], silences: [], watches: [], streams: [odd] }).blocks as never, 'mrkdwn');
    for (const text of [status, digest, home]) {
      expect(text).toContain(`🟠 \`<${RUN}|orders*eu>\` · `);
      expect(text).not.toContain('*<');
    }
  });
});

describe('a name without them', () => {
  it.each(['orders-enrich', 'sensor_ingest', 'orders_5min_agg', 'Orders ETL (eu)', 'bronze.orders~v2', 'a1b2c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d'])(
    'stays bold: %j',
    (name) => {
      expect(streamLine(stream(name), NOW).split(' · ')[0]).toBe(`🟠 *${name}*`);
      expect(shownName(name)).toBe(`🟠 <b>${escapeHtml(name)}</b>`);
      expect(streamLine(stream(name, RUN), NOW).split(' · ')[0]).toBe(`🟠 *<${RUN}|${name}>*`);
    },
  );

  it('is escaped as before: no raw <, and a | cannot end the link', () => {
    expect(boldName('a <!here> | b', RUN)).toBe(`*<${RUN}|a &lt;!here&gt; ¦ b>*`);
    expect(boldName('a*b', 'javascript:alert(1)')).toBe('`a*b`');
  });
});
