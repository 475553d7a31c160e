import { describe, expect, it } from 'vitest';
import { parseDatabricksConfigFile } from '../../src/config/index.js';

const PATH = '/home/ops/.databrickscfg';

describe('parseDatabricksConfigFile', () => {
  it('reads sections, keys (lower-cased) and values, skipping ; and # comments and blank lines', () => {
    const text = [
      '; written by databricks configure',
      '[DEFAULT]',
      'host  = https://adb-1234567890123456.7.azuredatabricks.net',
      'token = dapi0123456789abcdef0123456789abcdef',
      '',
      '# the service principal of the bot',
      '[prod]',
      'HOST: https://dbc-a1b2c3d4-e5f6.cloud.databricks.com',
      'client_id = 6f1d3b7e-2a4c-4e5f-9b8a-1c2d3e4f5a60',
      'client_secret = dose#with;marks=',
      '  auth_type = oauth-m2m  ',
      '[empty]',
    ].join('\r\n');
    const result = parseDatabricksConfigFile(text, PATH);
    if (!result.ok) throw new Error(result.errors.join('\n'));
    expect([...result.profiles.keys()]).toEqual(['DEFAULT', 'prod', 'empty']);
    expect(result.profiles.get('DEFAULT')!.values.token).toEqual({ value: 'dapi0123456789abcdef0123456789abcdef', line: 4 });
    const prod = result.profiles.get('prod')!;
    expect(prod.line).toBe(7);
    expect(prod.values.host!.value).toBe('https://dbc-a1b2c3d4-e5f6.cloud.databricks.com');
    // A secret may hold comment characters: values are kept whole.
    expect(prod.values.client_secret!.value).toBe('dose#with;marks=');
    expect(prod.values.auth_type).toEqual({ value: 'oauth-m2m', line: 11 });
    expect(result.profiles.get('empty')!.values).toEqual({});
  });

  it('reads an empty file as no profiles', () => {
    const result = parseDatabricksConfigFile('', PATH);
    expect(result.ok && result.profiles.size).toBe(0);
  });

  const malformed: { name: string; text: string; error: string }[] = [
    { name: 'a key before any section', text: 'host = https://x.cloud.databricks.com\n[DEFAULT]', error: `${PATH}:1: "host" comes before any profile; put a header such as [DEFAULT] above it` },
    { name: 'a line that is not key = value', text: '[DEFAULT]\ndapi0123456789abcdef', error: `${PATH}:2: expected "key = value"` },
    { name: 'an unclosed header', text: '[prod\nhost = h', error: `${PATH}:1: a profile header must be a name in brackets on its own line, e.g. [prod]` },
    { name: 'an empty header', text: '[ ]\nhost = h', error: `${PATH}:1: empty profile name` },
    { name: 'a profile twice', text: '[prod]\nhost = a\n[prod]\ntoken = t', error: `${PATH}:3: profile [prod] appears twice (first on line 1); merge them into one section` },
    { name: 'a key twice', text: '[prod]\ntoken = a\nTOKEN = b', error: `${PATH}:3: "token" is set twice in profile [prod] (first on line 2); keep one` },
  ];
  it.each(malformed)('reports $name with file:line', ({ text, error }) => {
    const result = parseDatabricksConfigFile(text, PATH);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]).toContain(error);
  });

  it('never puts a value in an error', () => {
    const result = parseDatabricksConfigFile('[prod]\ntoken = dapi-secret-1\nthis line has dapi-secret-2 in it', PATH);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.join('\n')).not.toMatch(/dapi-secret/);
  });
});
