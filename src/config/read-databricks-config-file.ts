/**
 * Reads the Databricks configuration profiles file at the composition edge: `DATABRICKS_CONFIG_FILE`
 * (a leading `~` is the home folder) or `~/.databrickscfg`. A missing file is `null`, not an error;
 * parsing and resolving stay pure (`resolveDatabricksAuth`).
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { DatabricksConfigFileText } from './databricks-auth.js';

export type ReadDatabricksConfigResult = { ok: true; file: DatabricksConfigFileText | null } | { ok: false; problem: string };

/** Where the profiles file is. @defaultValue `~/.databrickscfg` */
export function databricksConfigPath(env: NodeJS.ProcessEnv, home: string = homedir()): { path: string; explicit: boolean } {
  const named = env.DATABRICKS_CONFIG_FILE?.trim();
  if (!named) return { path: join(home, '.databrickscfg'), explicit: false };
  return { path: named === '~' || named.startsWith('~/') ? join(home, named.slice(1)) : named, explicit: true };
}

export function readDatabricksConfigFile(env: NodeJS.ProcessEnv, home?: string): ReadDatabricksConfigResult {
  const { path, explicit } = databricksConfigPath(env, home);
  try {
    return { ok: true, file: { path, text: readFileSync(path, 'utf8') } };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !explicit) return { ok: true, file: null };
    return {
      ok: false,
      problem:
        code === 'ENOENT'
          ? `DATABRICKS_CONFIG_FILE names ${path}, which does not exist; fix the path or unset it to use ~/.databrickscfg`
          : `cannot read the Databricks config file ${path} (${code ?? 'error'}); make it readable by this process or set DATABRICKS_CONFIG_FILE`,
    };
  }
}
