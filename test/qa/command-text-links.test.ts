/** Pasted text survives Slack's auto-linking: `/stream diagnose` must read the JSON the person typed. */
import { describe, expect, it } from 'vitest';
import { parseStreamCommand, unescapeSlackText } from '../../src/slack/command-text.js';

describe('auto-linked command text', () => {
  it('comes back as typed: the label when Slack added one, else the URL', () => {
    expect(unescapeSlackText('see <http://example.com|example.com> and <https://adb-1.azuredatabricks.net/jobs/1>')).toBe(
      'see example.com and https://adb-1.azuredatabricks.net/jobs/1',
    );
  });

  it('a pasted progress report keeps its broker list and sink path', () => {
    // Slack links `kafka-1.prod:9092` as <http://kafka-1.prod:9092|kafka-1.prod:9092> in should_escape mode.
    const typed = '{"id":"8f3c2a51-6b0e-4d7a-9c1e-2b5f7d9a0e34","sources":[{"description":"KafkaV2[Subscribe[orders]] <http://kafka-1.prod:9092|kafka-1.prod:9092>"}],"sink":{"description":"DeltaSink[<https://acme.blob.core.windows.net/lake>]"}}';
    const parsed = parseStreamCommand(`diagnose ${typed}`);
    expect(parsed).toEqual({
      name: 'diagnose',
      input: '{"id":"8f3c2a51-6b0e-4d7a-9c1e-2b5f7d9a0e34","sources":[{"description":"KafkaV2[Subscribe[orders]] kafka-1.prod:9092"}],"sink":{"description":"DeltaSink[https://acme.blob.core.windows.net/lake]"}}',
    });
  });
});
