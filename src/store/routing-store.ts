/**
 * Routing: which Slack channel hears about a stream. Overrides made in Slack (`watch`) are stored
 * in one hash; defaults come from the watch file and are passed in. Precedence, most specific
 * first: query, job, pipeline; overrides before defaults at each level; then the default channel.
 * Also holds channel → query bindings for dedicated incident channels.
 */
import type { Redis } from 'ioredis';
import type { StoreKeys } from './keys.js';
import type { RouteRule, RouteScope, RoutingDefaults, StreamInfo } from './types.js';

const SCOPES: RouteScope[] = ['query', 'job', 'pipeline'];

function field(scope: RouteScope, id: string): string {
  return `${scope}:${id}`;
}

/** Pure resolution over loaded overrides and defaults. */
export function resolveRoute(
  stream: Pick<StreamInfo, 'queryId' | 'jobId' | 'pipelineId'>,
  overrides: Record<string, string>,
  defaults: RoutingDefaults = {},
): string | null {
  const ids: Record<RouteScope, string | undefined> = {
    query: stream.queryId,
    job: stream.jobId,
    pipeline: stream.pipelineId,
  };
  const defaultMaps: Record<RouteScope, Record<string, string> | undefined> = {
    query: defaults.queries,
    job: defaults.jobs,
    pipeline: defaults.pipelines,
  };
  for (const scope of SCOPES) {
    const id = ids[scope];
    if (!id) continue;
    const override = overrides[field(scope, id)];
    if (override) return override;
    const fromConfig = defaultMaps[scope]?.[id];
    if (fromConfig) return fromConfig;
  }
  return defaults.defaultChannel ?? null;
}

export class RoutingStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  /** Routes a query, job or pipeline to a channel (a Slack `watch`). */
  async setRoute(scope: RouteScope, id: string, channel: string): Promise<void> {
    await this.redis.hset(this.keys.routes(), field(scope, id), channel);
  }

  async removeRoute(scope: RouteScope, id: string): Promise<boolean> {
    return (await this.redis.hdel(this.keys.routes(), field(scope, id))) > 0;
  }

  async listRoutes(): Promise<RouteRule[]> {
    const all = await this.redis.hgetall(this.keys.routes());
    return Object.entries(all).map(([key, channel]) => {
      const colon = key.indexOf(':');
      return { scope: key.slice(0, colon) as RouteScope, id: key.slice(colon + 1), channel };
    });
  }

  /** The channel a stream's notifications go to, or null when nothing routes it. */
  async resolve(stream: Pick<StreamInfo, 'queryId' | 'jobId' | 'pipelineId'>, defaults?: RoutingDefaults): Promise<string | null> {
    const wanted = SCOPES.map((scope) => {
      const id = scope === 'query' ? stream.queryId : scope === 'job' ? stream.jobId : stream.pipelineId;
      return id ? field(scope, id) : null;
    });
    const present = wanted.filter((f): f is string => f !== null);
    const values = present.length > 0 ? await this.redis.hmget(this.keys.routes(), ...present) : [];
    const overrides: Record<string, string> = {};
    present.forEach((f, i) => {
      if (values[i]) overrides[f] = values[i]!;
    });
    return resolveRoute(stream, overrides, defaults);
  }

  /** Binds an incident channel to one query, so commands typed there need no argument. */
  async bindChannel(channel: string, queryId: string): Promise<void> {
    await this.redis.hset(this.keys.channelBindings(), channel, queryId);
  }

  async unbindChannel(channel: string): Promise<void> {
    await this.redis.hdel(this.keys.channelBindings(), channel);
  }

  async getChannelBinding(channel: string): Promise<string | null> {
    return this.redis.hget(this.keys.channelBindings(), channel);
  }
}
