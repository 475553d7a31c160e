/**
 * The App Home of someone none of whose channels has a stream: nothing to report, and it must not
 * read as a health verdict ("all keeping up") about streams that are not there, nor when the
 * person's channels could not be read at all.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BOT, DEFAULT_USERS } from '../../src/standins/slack/index.js';
import { DEV, startHarness, type Harness } from './helpers/harness.js';

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function homeOf(harness: Harness, user: string): Promise<string> {
  await harness.slack.interactions.openHome({ user });
  const view = await harness.until(() => harness.slack.homeView(user));
  expect(view.blocks.length).toBeLessThanOrEqual(100);
  return JSON.stringify(view.blocks);
}

describe('App Home with no streams', () => {
  it('says there is nothing in the person’s channels and how to add a stream, with no green verdict', async () => {
    h = await startHarness();
    const home = await homeOf(h, DEV);
    expect(home).toContain('Open incidents (0)');
    expect(home).toContain('No open incidents in your channels.');
    expect(home).not.toContain('keeping up');
    expect(home).not.toContain('🟢');
    expect(home).toContain('No watches in your channels yet. `/stream watch <query|job|pipeline> [#channel]` adds one.');
  });

  it('makes no health claim when the person’s channels cannot be read', async () => {
    // Installed without groups:read: users.conversations answers missing_scope.
    const bot = { ...DEFAULT_BOT, scopes: ['commands', 'chat:write', 'chat:write.public', 'channels:read', 'files:write', 'files:read'] };
    h = await startHarness({ slack: { bots: [bot], users: DEFAULT_USERS } });
    await h.store.streams.upsert({ queryId: 'q-orders', name: 'orders_enrichment' });
    await h.store.routing.setRoute('query', 'q-orders', 'C0DATAALRT');
    const home = await homeOf(h, DEV);
    expect(home).toContain('cannot list the channels you are in');
    expect(home).not.toContain('keeping up');
  });
});
