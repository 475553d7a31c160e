/**
 * Parses a Databricks configuration profiles file (`~/.databrickscfg`): INI sections (`[DEFAULT]`,
 * `[prod]`), `key = value` lines, `;` and `#` comment lines. Pure: text in, profiles or every
 * malformed line (`file:line: what is wrong; what to write`) out. Values are kept whole (a secret may
 * hold `#` or `;`) and never appear in an error.
 */

export interface DatabricksConfigValue {
  value: string;
  /** 1-based line of the key in the file. */
  line: number;
}

export interface DatabricksConfigProfile {
  name: string;
  line: number;
  /** Keys lower-cased, as Databricks' SDKs read them (`host`, `token`, `client_id`, …). */
  values: Record<string, DatabricksConfigValue>;
}

export type DatabricksConfigFileResult =
  | { ok: true; profiles: Map<string, DatabricksConfigProfile> }
  | { ok: false; errors: string[] };

const SECTION = /^\[([^\]]*)\]$/;
const ENTRY = /^([A-Za-z0-9_.-]+)\s*[=:]\s*(.*)$/;

export function parseDatabricksConfigFile(text: string, path: string): DatabricksConfigFileResult {
  const profiles = new Map<string, DatabricksConfigProfile>();
  const errors: string[] = [];
  let current: DatabricksConfigProfile | null = null;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith(';') || trimmed.startsWith('#')) return;
    const at = `${path}:${line}:`;
    const section = SECTION.exec(trimmed);
    if (section) {
      const name = section[1]!.trim();
      if (name === '') {
        errors.push(`${at} empty profile name; write a name in the brackets, e.g. [prod]`);
        current = null;
        return;
      }
      const previous = profiles.get(name);
      if (previous) {
        errors.push(`${at} profile [${name}] appears twice (first on line ${previous.line}); merge them into one section`);
        current = previous;
        return;
      }
      current = { name, line, values: {} };
      profiles.set(name, current);
      return;
    }
    if (trimmed.startsWith('[')) {
      errors.push(`${at} a profile header must be a name in brackets on its own line, e.g. [prod]`);
      return;
    }
    const entry = ENTRY.exec(trimmed);
    if (!entry) {
      errors.push(`${at} expected "key = value" (e.g. host = https://adb-1234567890123456.7.azuredatabricks.net), a [profile] header or a comment starting with ; or #`);
      return;
    }
    if (!current) {
      errors.push(`${at} "${entry[1]}" comes before any profile; put a header such as [DEFAULT] above it`);
      return;
    }
    const key = entry[1]!.toLowerCase();
    const profile: DatabricksConfigProfile = current;
    const existing = profile.values[key];
    if (existing) {
      errors.push(`${at} "${key}" is set twice in profile [${profile.name}] (first on line ${existing.line}); keep one`);
      return;
    }
    profile.values[key] = { value: entry[2]!.trim(), line };
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, profiles };
}
