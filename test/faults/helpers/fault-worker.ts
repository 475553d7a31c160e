/**
 * A worker (or clock) process for the fault suite, configured by SD_FAULT_CHILD (JSON). A worker
 * SIGKILLs itself at points of notify named by a kill plan in Redis (a list the test fills from its
 * seeded RNG; entries `<point>|<skip>`): the head entry's point is where the next kill happens, after
 * `skip` more passes through it. Points:
 *  - `before_post`: the claim is written, chat.postMessage not yet sent;
 *  - `after_post`: chat.postMessage answered, its ts not yet recorded (the poster's afterPost hook);
 *  - `mid_update`: chat.update sent, its answer not yet back.
 * Every kill is logged to a second list (`<point>|<pid>`) before the process dies.
 */
import { engineTrackers } from '../../../jobs/engine-trackers.js';
import { WebClientChat, type ChatMessage } from '../../../src/slack/gateway/slack-chat.js';
import { createLogger } from '../../../src/observability/logger.js';
import { createRedis } from '../../../src/runtime/redis-client.js';
import { startClock, startWorker } from '../../../src/runtime/pipeline-runtime.js';
import { installShutdown } from '../../../src/runtime/shutdown.js';
import { LuaScript } from '../../../src/store/script.js';
import { SimulatedSource, type SimSourceSettings } from '../../pipeline/helpers/sim-source.js';

export type KillPoint = 'before_post' | 'after_post' | 'mid_update';

export interface FaultChildConfig {
  role: 'worker' | 'clock';
  redisUrl: string;
  prefix: string;
  queuePrefix: string;
  slackApiUrl?: string;
  sim?: SimSourceSettings;
  pollEveryMs?: number;
  /** Redis list keys of the kill plan and the kill log (one hash tag, so one slot). */
  killPlanKey?: string;
  killLogKey?: string;
  /** Slack call timeout. @defaultValue 3000 */
  slackTimeoutMs?: number;
}

// Pops the plan's head when it names this point and its skip count is spent; logs the kill.
const TAKE_KILL = new LuaScript(`
local head = redis.call('LINDEX', KEYS[1], 0)
if not head then return 0 end
local sep = string.find(head, '|', 1, true)
local point = string.sub(head, 1, sep - 1)
local skip = tonumber(string.sub(head, sep + 1))
if point ~= ARGV[1] then return 0 end
if skip > 0 then
  redis.call('LSET', KEYS[1], 0, point .. '|' .. (skip - 1))
  return 0
end
redis.call('LPOP', KEYS[1])
redis.call('RPUSH', KEYS[2], point .. '|' .. ARGV[2])
return 1
`);

const config = JSON.parse(process.env.SD_FAULT_CHILD ?? '{}') as FaultChildConfig;
const logger = createLogger({ name: `fault-${config.role}-${process.pid}`, level: process.env.LOG_LEVEL ?? 'warn' });

if (config.role === 'clock') {
  const clock = await startClock({
    redisUrl: config.redisUrl,
    prefix: config.prefix,
    queuePrefix: config.queuePrefix,
    logger,
    schedule: { sourceIds: ['sim'], pollEveryMs: config.pollEveryMs ?? 1000, sweepEveryMs: 60_000, digest: false },
  });
  installShutdown(() => clock.close(), { logger });
  process.stdout.write('ready\n');
} else {
  const plan = createRedis(config.redisUrl, 'worker', {}, logger);
  const dieAt = async (point: KillPoint): Promise<boolean> => {
    if (!config.killPlanKey || !config.killLogKey) return false;
    return Number(await TAKE_KILL.run(plan, [config.killPlanKey, config.killLogKey], [point, process.pid])) === 1;
  };
  const die = (): never => {
    process.kill(process.pid, 'SIGKILL');
    throw new Error('unreachable');
  };

  class KillingChat extends WebClientChat {
    override async postMessage(message: ChatMessage): Promise<{ ts: string }> {
      if (await dieAt('before_post')) die();
      return super.postMessage(message);
    }

    override async update(message: ChatMessage & { ts: string }): Promise<void> {
      if (await dieAt('mid_update')) {
        void super.update(message).catch(() => undefined);
        // The request is on the wire (or about to be); the process dies before the answer.
        await new Promise((r) => setTimeout(r, 5));
        die();
      }
      return super.update(message);
    }
  }

  const sim = new SimulatedSource(config.sim!);
  const worker = await startWorker({
    redisUrl: config.redisUrl,
    prefix: config.prefix,
    queuePrefix: config.queuePrefix,
    logger,
    sources: new Map([['sim', { id: 'sim', source: sim }]]),
    trackers: engineTrackers(),
    chat: new KillingChat({ token: 'xoxb-local-streamdoctor', slackApiUrl: config.slackApiUrl!, timeoutMs: config.slackTimeoutMs ?? 3000 }),
    routing: { defaultChannel: 'C0DATAALRT' },
    workers: { lockDurationMs: 5000, stalledIntervalMs: 2000 },
    // Storm grouping off: every incident gets its own message, so each kill lands on one incident.
    store: { storm: { threshold: 1000 } },
    afterPost: async () => {
      if (await dieAt('after_post')) die();
    },
  });
  installShutdown(async () => {
    await worker.close();
    plan.disconnect();
  }, { logger });
  process.stdout.write('ready\n');
}
