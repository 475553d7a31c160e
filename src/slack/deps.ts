/**
 * What the Slack handlers need, passed in (never imported as singletons) so tests can build them
 * over a real Redis with a unique prefix and a local Slack.
 */
import type { Logger } from '../observability/logger.js';
import type { RedisStore } from '../store/redis-store.js';
import type { RoutingDefaults } from '../store/types.js';
import type { PermissionChecker } from './permissions.js';

export interface DigestRequester {
  /**
   * Posts (or enqueues) the digest of one channel now. The handler has already acked; this may take
   * a few seconds. Defaults to posting inline with `postDigest`.
   */
  requestNow(channel: string): Promise<'posted' | 'queued'>;
}

export interface AlertRefresher {
  /**
   * Asks the notify worker to bring an incident's alert in line with its record: re-render the
   * message, or post it when nothing was shown yet and nothing keeps it quiet any more. `reason`
   * and `tag` name the event (an ack, an unmute at some time), so asking twice enqueues one job.
   */
  refresh(incidentId: string, reason: string, tag: string | number): Promise<void>;
}

export interface DiagnoseLimits {
  /**
   * Largest file `/stream diagnose` downloads.
   * @defaultValue 20 MiB
   */
  maxFileBytes?: number;
  /**
   * Most progress records diagnosed from one input.
   * @defaultValue 50 000
   */
  maxRecords?: number;
}

export interface SlackDeps {
  store: RedisStore;
  permissions: PermissionChecker;
  logger: Logger;
  /** Routing defaults from the watch file (the store's overrides win over them). */
  routingDefaults?: RoutingDefaults;
  /** @defaultValue Date.now */
  now?: () => number;
  /** Refreshes of alerts through the notify worker (the one writer of alert messages). */
  alerts?: AlertRefresher;
  /** Digest of a channel now; when absent the app posts it inline. */
  digest?: DigestRequester;
  diagnose?: DiagnoseLimits;
  /** Hosts `/stream diagnose` may download shared files from with the bot token (besides *.slack.com). */
  fileHosts?: string[];
  /** Slash command name. @defaultValue '/stream' */
  command?: string;
}

export function nowOf(deps: Pick<SlackDeps, 'now'>): number {
  return (deps.now ?? Date.now)();
}
