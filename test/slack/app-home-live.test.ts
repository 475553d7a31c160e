import { describe, expect, it } from 'vitest';
import { renderAppHome } from '../../src/slack/render/app-home.js';
import { blockText } from './helpers/block-kit-limits.js';
import { NOW, lagRecord } from './helpers/incidents.js';

// The Home's line read "open for 1h 13m" beside the summary the incident opened with ("14m 20s
// behind"), as if that were now.
describe('App Home open incident line', () => {
  it('gives the time behind now and dates the summary', () => {
    const view = renderAppHome({
      userId: 'U024BE7LH',
      nowMs: NOW,
      openIncidents: [{ ...lagRecord(), channel: 'C0DATAALRT', timeBehindNowSec: 1109 }],
      silences: [],
      watches: [{ target: 'orders-enrich', kind: 'query', channel: 'C0DATAALRT' }],
    });
    const text = blockText(view.blocks as never);
    expect(text).toContain('open for 47m 30s · now 18m 29s behind');
    expect(text).toMatch(/As of its last update, at or after <!date\^\d+\^[^>]+>: orders-enrich is 14m 20s behind/);
  });

  it('dates the summary when the time behind now is unknown', () => {
    const view = renderAppHome({ userId: 'U024BE7LH', nowMs: NOW, openIncidents: [{ ...lagRecord(), channel: 'C0DATAALRT' }], silences: [], watches: [] });
    const text = blockText(view.blocks as never);
    expect(text).not.toContain(' · now ');
    expect(text).toMatch(/As of its last update, at or after <!date\^\d+\^[^>]+>: orders-enrich/);
  });

  it('dates the summary by the time its figures are of, once the engine keeps it', () => {
    const figuresAt = NOW - 5 * 60_000;
    const record = lagRecord();
    const view = renderAppHome({
      userId: 'U024BE7LH',
      nowMs: NOW,
      openIncidents: [{ ...record, incident: { ...record.incident, figuresAt: new Date(figuresAt).toISOString() }, channel: 'C0DATAALRT' }],
      silences: [],
      watches: [],
    });
    const text = blockText(view.blocks as never);
    expect(text).toContain(`As of its last update, <!date^${Math.floor(figuresAt / 1000)}^`);
    expect(text).not.toContain('at or after');
  });
});
