/**
 * What the Slack handlers need, passed in (never imported as singletons) so tests can build them
 * over a real Redis with a unique prefix and a local Slack.
 */
import type { CapacityAdvisor } from '../capacity/capacity-advisor.js';
import type { Logger } from '../observability/logger.js';
import type { RedisStore } from '../store/redis-store.js';
import type { RoutingDefaults } from '../store/types.js';
import type { PermissionChecker } from './permissions.js';
import type { AlertNote } from './render/alert.js';

export interface DigestRequester {
  /**
   * Enqueues the digest of one channel now (the digest worker posts it through the poster, like the
   * daily one). Without it, `/stream digest` says it is not available.
   */
  requestNow(channel: string): Promise<void>;
}

export interface AlertRefresher {
  /**
   * Asks the notify worker to bring an incident's alert in line with its record: re-render the
   * message, or post it when nothing was shown yet and nothing keeps it quiet any more. `reason`
   * and `tag` name the event (an ack, an unmute at some time), so asking twice enqueues one job.
   */
  refresh(incidentId: string, reason: string, tag: string | number, note?: AlertNote): Promise<void>;
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
  /** Digest of a channel now, through the digest queue. */
  digest?: DigestRequester;
  diagnose?: DiagnoseLimits;
  /** Hosts `/stream diagnose` may download shared files from with the bot token (besides *.slack.com). */
  fileHosts?: string[];
  /** Slash command name. @defaultValue '/stream' */
  command?: string;
  /**
   * Says capacity advice in workers of the stream's job cluster when it is known (src/capacity), as
   * the alerts do. @defaultValue none: the engine's wording
   */
  advisor?: CapacityAdvisor;
}

export function nowOf(deps: Pick<SlackDeps, 'now'>): number {
  return (deps.now ?? Date.now)();
}

/** The record as the alerts show it: capacity advice in workers when the stream's job cluster is known. */
export function adviceOf<T extends Parameters<CapacityAdvisor['inWorkers']>[0]>(
  deps: Pick<SlackDeps, 'advisor'>,
  record: T,
  stream: Parameters<CapacityAdvisor['inWorkers']>[1],
): Promise<T> {
  return deps.advisor ? deps.advisor.inWorkers(record, stream) : Promise.resolve(record);
}
