import { describe, expect, it } from 'vitest';
import { parseFlags } from '../../src/cli/commands/local-databricks.js';

describe('streamdoctor local-databricks flags', () => {
  it('reads port, speed, scenarios and late fraction', () => {
    expect(parseFlags(['--port', '0', '--speed=60', '--scenarios', 'healthy-steady, kafka-cap-too-low', '--late', '0.2'])).toEqual({
      port: 0,
      host: '127.0.0.1',
      speed: 60,
      scenarios: ['healthy-steady', 'kafka-cap-too-low'],
      late: 0.2,
      list: false,
    });
  });

  it('says what is wrong with a bad value', () => {
    expect(parseFlags(['--speed', 'fast'])).toEqual({ error: '--speed needs a number above 0 (at most 10000), e.g. 60' });
    expect(parseFlags(['--late', '2'])).toEqual({ error: '--late needs a fraction from 0 to 1, e.g. 0.2' });
    expect(parseFlags(['--colour'])).toEqual({ error: 'unknown option "--colour"' });
    expect(parseFlags(['--help'])).toBe('help');
  });
});
