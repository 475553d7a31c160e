/** The real @slack/web-api WebClient against the stand-in: postMessage, update, files.uploadV2. */
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalSlack, startLocalSlack } from '../../src/standins/slack/index.js';
import { ALERTS, callApi, LAG_ALERT, TOKEN } from './helpers.js';

// A real 1×1 PNG, as the digest chart is a PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

let slack: LocalSlack;
let client: InstanceType<typeof webApi.WebClient>;

beforeEach(async () => {
  slack = await startLocalSlack({ rateLimit: false });
  client = new webApi.WebClient(TOKEN, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 }, logLevel: webApi.LogLevel.ERROR });
});

afterEach(async () => {
  await slack.close();
});

describe('WebClient', () => {
  it('posts and updates an alert', async () => {
    const posted = await client.chat.postMessage({ channel: ALERTS, ...LAG_ALERT.open } as never);
    expect(posted.ok).toBe(true);
    const updated = await client.chat.update({ channel: ALERTS, ts: posted.ts!, ...LAG_ALERT.acknowledged } as never);
    expect(updated.ts).toBe(posted.ts);
    expect(slack.messages(ALERTS)).toHaveLength(1);
    expect(slack.messages(ALERTS)[0]?.text).toBe(LAG_ALERT.acknowledged.text);
  });

  it('surfaces Slack errors as WebAPIPlatformError with the code', async () => {
    await expect(client.chat.postMessage({ channel: 'C0NOWHERE1', text: 'x' })).rejects.toMatchObject({
      code: webApi.ErrorCode.PlatformError,
      data: { ok: false, error: 'channel_not_found' },
    });
  });

  it('throws WebAPIRateLimitedError with the Retry-After seconds when told to reject rate-limited calls', async () => {
    const limited = await startLocalSlack({ rateLimit: { perSecond: 1, burst: 0 } });
    try {
      const strict = new webApi.WebClient(TOKEN, { slackApiUrl: limited.apiUrl, rejectRateLimitedCalls: true, logLevel: webApi.LogLevel.ERROR });
      await strict.chat.postMessage({ channel: ALERTS, text: 'first' });
      await expect(strict.chat.postMessage({ channel: ALERTS, text: 'second' })).rejects.toMatchObject({
        code: webApi.ErrorCode.RateLimitedError,
        retryAfter: 1,
      });
    } finally {
      await limited.close();
    }
  });

  it('uploads a PNG with files.uploadV2 into a thread; the file shows in the channel and can be read back', async () => {
    const parent = await client.chat.postMessage({ channel: ALERTS, text: 'Daily stream health' });
    const result = await client.files.uploadV2({
      channel_id: ALERTS,
      thread_ts: parent.ts!,
      file: PNG,
      filename: 'time-behind-24h.png',
      title: 'Time behind, last 24 h',
      initial_comment: 'Time behind per stream',
    });
    expect(result.ok).toBe(true);
    const [file] = slack.files();
    expect(file).toMatchObject({ name: 'time-behind-24h.png', title: 'Time behind, last 24 h', mimetype: 'image/png', size: PNG.length, completed: true, channels: [ALERTS] });
    expect(file!.bytes.equals(PNG)).toBe(true);
    const reply = slack.thread(ALERTS, parent.ts!)[1];
    expect(reply).toMatchObject({ subtype: 'file_share', text: 'Time behind per stream', thread_ts: parent.ts });
    expect(reply?.files?.[0]).toMatchObject({ id: file!.id, mimetype: 'image/png' });
    // The chat view serves the image; url_private needs the bot token.
    const viewed = await fetch(`${slack.url}/admin/files/${file!.id}`);
    expect(viewed.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await viewed.arrayBuffer()).equals(PNG)).toBe(true);
    const privateUrl = reply!.files![0]!.url_private;
    expect((await fetch(privateUrl)).status).toBe(403);
    const authed = await fetch(privateUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(authed.status).toBe(200);
    const info = await client.files.info({ file: file!.id });
    expect(info.file).toMatchObject({ id: file!.id, title: 'Time behind, last 24 h' });
  });
});

describe('the upload flow by hand', () => {
  it('needs filename and length, an upload before completion, and a known file id', async () => {
    expect((await callApi(slack.apiUrl, 'files.getUploadURLExternal', { filename: 'a.png' })).json.error).toBe('invalid_arguments');
    expect((await callApi(slack.apiUrl, 'files.getUploadURLExternal', 'length=10')).json.error).toBe('invalid_arguments');
    const reserved = await callApi(slack.apiUrl, 'files.getUploadURLExternal', `filename=report.json&length=17`);
    expect(reserved.json.upload_url).toBe(`${slack.url}/upload/v1/${reserved.json.file_id}`);
    const early = await callApi(slack.apiUrl, 'files.completeUploadExternal', { files: [{ id: reserved.json.file_id }], channel_id: ALERTS });
    expect(early.json.error).toBe('file_upload_not_completed');
    const upload = await fetch(reserved.json.upload_url, { method: 'POST', body: '{"batchId": 1042}' });
    expect(upload.status).toBe(200);
    expect(await upload.text()).toBe('OK - 17');
    const unknown = await callApi(slack.apiUrl, 'files.completeUploadExternal', { files: [{ id: 'F0NOSUCH01' }] });
    expect(unknown.json.error).toBe('file_not_found');
    const done = await callApi(slack.apiUrl, 'files.completeUploadExternal', `files=${encodeURIComponent(JSON.stringify([{ id: reserved.json.file_id, title: 'Progress' }]))}`);
    expect(done.json).toMatchObject({ ok: true, files: [{ id: reserved.json.file_id, title: 'Progress' }] });
    // Completed without a channel: private to the app, nothing posted.
    expect(slack.messages(ALERTS)).toEqual([]);
    expect((await fetch(`${slack.url}/upload/v1/F0NOSUCH01`, { method: 'POST', body: 'x' })).status).toBe(404);
  });
});
