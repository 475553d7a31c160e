/**
 * STREAMDOCTOR_ADMINS with a user group: members of the group may mute and ack,
 * others may not. The group's members are read from Slack (usergroups.users.list, usergroups:read)
 * through the request's client; before, no lookup was wired and a group never matched.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CHANNEL, DEV, MARIA, startHarness, type Harness } from './helpers/harness.js';
import { seedScenario } from './helpers/seed.js';

const SAM = 'U0SAM00003';
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function run(text: string, user: string): Promise<string> {
  const outcome = await h!.slack.interactions.slashCommand({ user, channel: CHANNEL, text });
  const record = await h!.until(() => h!.slack.responses().find((r) => r.url === outcome.responseUrl && r.responses.length > 0));
  return (record.responses[0] as { text: string }).text;
}

describe('admins by user group', () => {
  it('members of an admin user group may mute and ack; others are refused', async () => {
    h = await startHarness({ policy: { userGroups: ['S0ONCALL01'] }, slack: { userGroups: [{ id: 'S0ONCALL01', handle: 'data-oncall', users: [DEV, MARIA] }] } });
    const sensor = await seedScenario(h.store, 'kafka-partition-bound');
    await h.store.routing.setRoute('query', sensor.queryId, CHANNEL);
    expect(await run(`mute ${sensor.name} 2h`, SAM)).toContain('may mute streams here');
    expect(await h.store.silences.isSilenced(sensor.queryId)).toBe(false);
    expect(await run(`mute ${sensor.name} 2h`, DEV)).toContain(`Silenced \`${sensor.name}\``);
    expect(await h.store.silences.isSilenced(sensor.queryId)).toBe(true);
    expect(await run(`ack ${sensor.name}`, SAM)).toContain('may ack streams here');
    expect(await run(`ack ${sensor.name}`, MARIA)).toContain('You acknowledged');
  });
});
