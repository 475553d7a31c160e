import { describe, expect, it } from 'vitest';
import { describeInvalidMode, detectStartMode } from '../../src/config/start-mode.js';

const slack = { SLACK_BOT_TOKEN: 'xoxb-1-2-abc', SLACK_SIGNING_SECRET: '8f742231b10e8888abcd99yyyzzz85a5' };
const pat = { DATABRICKS_HOST: 'https://adb-1234567890123456.7.azuredatabricks.net', DATABRICKS_TOKEN: 'dapi0123456789abcdef0123456789abcdef' };

describe('detectStartMode', () => {
  it('runs the demo when no credential is set, whatever else is', () => {
    expect(detectStartMode({ PATH: '/usr/bin', REDIS_URL: 'redis://r:6379', PORT: '3000' })).toMatchObject({ mode: 'demo' });
    expect(detectStartMode({ SLACK_BOT_TOKEN: '   ' })).toMatchObject({ mode: 'demo' });
  });

  it('runs live with Slack (HTTP or Socket Mode) and Databricks (PAT or service principal)', () => {
    expect(detectStartMode({ ...slack, ...pat })).toEqual({ mode: 'live' });
    expect(
      detectStartMode({
        SLACK_BOT_TOKEN: 'xoxb-1',
        SLACK_APP_TOKEN: 'xapp-1-A1-1-x',
        DATABRICKS_HOST: 'https://dbc-a1b2c3d4-e5f6.cloud.databricks.com',
        DATABRICKS_CLIENT_ID: '6731fb0e-5c58-4c1f-9e3c-2a3d5e6f7a8b',
        DATABRICKS_CLIENT_SECRET: 'dose0123456789abcdef',
      }),
    ).toEqual({ mode: 'live' });
  });

  it('refuses half a configuration and names what is missing', () => {
    const onlySlack = detectStartMode(slack);
    expect(onlySlack.mode).toBe('invalid');
    expect(onlySlack.mode === 'invalid' && onlySlack.problems.join('\n')).toMatch(/DATABRICKS_HOST[\s\S]*DATABRICKS_TOKEN, or DATABRICKS_CLIENT_ID/);

    const noSecret = detectStartMode({ ...pat, DATABRICKS_TOKEN: '', DATABRICKS_CLIENT_ID: 'abc', SLACK_BOT_TOKEN: 'xoxb-1' });
    expect(noSecret).toEqual({
      mode: 'invalid',
      problems: [
        "set SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode): Slack's requests reach the app with it",
        'DATABRICKS_CLIENT_SECRET is not set (DATABRICKS_CLIENT_ID is)',
      ],
    });
  });

  it('runs live when a watch file or a Databricks profile says where the credentials are', () => {
    expect(detectStartMode({ ...slack, STREAMDOCTOR_CONFIG: '/etc/streamdoctor.yml' })).toEqual({ mode: 'live' });
    expect(detectStartMode({ ...slack, DATABRICKS_CONFIG_PROFILE: 'prod' })).toEqual({ mode: 'live' });
    // Slack is still checked.
    expect(detectStartMode({ SLACK_BOT_TOKEN: 'xoxb-1', DATABRICKS_CONFIG_PROFILE: 'prod' }).mode).toBe('invalid');
  });

  it('runs the demo when asked, even with credentials', () => {
    expect(detectStartMode({ ...slack, ...pat }, { forceDemo: true })).toMatchObject({ mode: 'demo' });
  });

  it('says how to fix or get the demo, without echoing any value', () => {
    const text = describeInvalidMode(['SLACK_BOT_TOKEN (the xoxb- bot token) is not set']);
    expect(text).toContain('  - SLACK_BOT_TOKEN');
    expect(text).toContain('npm start -- --demo');
  });
});
