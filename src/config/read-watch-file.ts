/** Reads and validates the watch file from disk; throws `WatchConfigError` listing every mistake. */
import { readFile } from 'node:fs/promises';
import { WatchConfigError, type WatchConfig } from './watch-config.js';
import { loadWatchConfig, type WatchConfigOverrides } from './watch-file.js';

export async function readWatchConfigFile(path: string, overrides: WatchConfigOverrides = {}): Promise<WatchConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new WatchConfigError(path, [
      {
        path: '(file)',
        line: 1,
        column: 1,
        message: code === 'ENOENT' ? 'file not found; set STREAMDOCTOR_CONFIG to the path of your watch file (see examples/streamdoctor.example.yml)' : `cannot read the file (${code ?? 'error'})`,
      },
    ]);
  }
  const result = loadWatchConfig(text, path, overrides);
  if (!result.ok) throw new WatchConfigError(path, result.errors);
  return result.config;
}
