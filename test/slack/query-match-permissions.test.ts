import { describe, expect, it } from 'vitest';
import { matchQuery } from '../../src/slack/query-match.js';
import { PermissionChecker, permissionPolicyFromList } from '../../src/slack/permissions.js';
import { streams } from './helpers/incidents.js';

describe('matchQuery', () => {
  const all = [...streams(), { queryId: 'ffff0000-1111-4222-8333-444455556666', name: 'orders-archive' }];

  it('matches exact names and ids, case-insensitively', () => {
    expect(matchQuery('ORDERS-ENRICH', all)).toMatchObject({ kind: 'match', stream: { name: 'orders-enrich' } });
    expect(matchQuery('9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a', all)).toMatchObject({ kind: 'match', stream: { name: 'payments-dedupe' } });
  });

  it('finds a job or pipeline named after itself by `job <id>` / `pipeline:<id>`', () => {
    const hosts = [
      ...all,
      { queryId: 'job-912004377120455', name: 'orders_ingest_stream' },
      { queryId: 'job-91200', name: 'orders_backfill' },
      { queryId: 'pipeline-abcdef12-abcd-3456-7890-abcd1234ef56', name: 'orders-dlt' },
    ];
    expect(matchQuery('job 912004377120455', hosts)).toMatchObject({ kind: 'match', stream: { name: 'orders_ingest_stream' } });
    expect(matchQuery('JOB:91200', hosts)).toMatchObject({ kind: 'match', stream: { name: 'orders_backfill' } });
    expect(matchQuery('pipeline abcdef12-abcd-3456-7890-abcd1234ef56', hosts)).toMatchObject({ kind: 'match', stream: { name: 'orders-dlt' } });
    expect(matchQuery('orders_ingest_stream', hosts)).toMatchObject({ kind: 'match', stream: { queryId: 'job-912004377120455' } });
  });

  it('matches unambiguous partial names and id prefixes', () => {
    expect(matchQuery('payments', all)).toMatchObject({ kind: 'match', stream: { name: 'payments-dedupe' } });
    expect(matchQuery('sessionize', all)).toMatchObject({ kind: 'match', stream: { name: 'clickstream-sessionize' } });
    expect(matchQuery('a1b2c3', all)).toMatchObject({ kind: 'match', stream: { name: 'orders-enrich' } });
  });

  it('lists the candidates when ambiguous and suggests close names when nothing matches', () => {
    const ambiguous = matchQuery('orders', all);
    expect(ambiguous.kind).toBe('ambiguous');
    expect(ambiguous.kind === 'ambiguous' && ambiguous.candidates.map((stream) => stream.name).sort()).toEqual(['orders-archive', 'orders-enrich']);
    const none = matchQuery('order-enrihc', all);
    expect(none).toMatchObject({ kind: 'none', suggestions: [{ name: 'orders-enrich' }] });
  });
});

describe('PermissionChecker', () => {
  it('lets anyone act when nothing is configured', async () => {
    expect(await new PermissionChecker().check('mute', 'U999')).toEqual({ allowed: true });
  });

  it('allows listed users and members of listed groups, and caches group lookups', async () => {
    let lookups = 0;
    const checker = new PermissionChecker({
      policy: permissionPolicyFromList('U0ADMIN1, S0ONCALL'),
      groupMembers: async (group) => {
        lookups += 1;
        return group === 'S0ONCALL' ? ['U0ONCALL'] : [];
      },
    });
    expect(await checker.check('watch', 'U0ADMIN1')).toEqual({ allowed: true });
    expect(await checker.check('watch', 'U0ONCALL')).toEqual({ allowed: true });
    expect(await checker.check('unmute', 'U0ONCALL')).toEqual({ allowed: true });
    expect(lookups).toBe(1);
    const denied = await checker.check('mute', 'U0RANDOM');
    expect(denied).toMatchObject({ allowed: false, reason: expect.stringContaining('<@U0ADMIN1>, <!subteam^S0ONCALL>') });
  });

  it('denies (and retries later) when the group lookup fails', async () => {
    let fail = true;
    const checker = new PermissionChecker({
      policy: { userGroups: ['S0ONCALL'] },
      groupMembers: async () => {
        if (fail) throw new Error('ratelimited');
        return ['U0ONCALL'];
      },
    });
    expect((await checker.check('mute', 'U0ONCALL')).allowed).toBe(false);
    fail = false;
    expect((await checker.check('mute', 'U0ONCALL')).allowed).toBe(true);
  });
});
