/**
 * A throwaway local Redis Cluster for `npm run test:cluster` (scripts/test-cluster.sh): 3 masters and
 * 3 replicas from `redis-server` on loopback, each node with its own config file and directory under
 * `<dir>` (so a test can stop a node and start it again with the same identity), created with
 * `redis-cli --cluster create … --cluster-replicas 1 --cluster-yes` and ready once every node says
 * `cluster_state:ok` and every master has its replica.
 *
 *   node bin/run-ts.mjs scripts/redis-cluster.ts start <dir>   prints the redis+cluster:// URL
 *   node bin/run-ts.mjs scripts/redis-cluster.ts stop <dir>    kills the nodes it started, removes <dir>
 *
 * `stop` only signals the pids recorded in `<dir>/*.pid` (the nodes this script started).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Whether `port` can be bound on loopback right now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((res) => {
    const server = createServer();
    server.unref();
    server.once('error', () => res(false));
    server.listen(port, '127.0.0.1', () => server.close(() => res(true)));
  });
}

/** `count` ports whose cluster bus port (+10000) is free too, from 20000–29999 (below the ephemeral range). */
async function clusterPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let tries = 0; ports.length < count && tries < 2000; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    if (ports.includes(port) || ports.includes(port + 10_000) || ports.includes(port - 10_000)) continue;
    if ((await portFree(port)) && (await portFree(port + 10_000))) ports.push(port);
  }
  if (ports.length < count) throw new Error('no free loopback ports for a cluster');
  return ports;
}

export function nodeConfigPath(dir: string, port: number): string {
  return join(dir, String(port), 'redis.conf');
}

function cli(port: number, ...args: string[]): string {
  return spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8', timeout: 5000 }).stdout ?? '';
}

/** Starts one node from its config file (daemonized; its pid lands in `<dir>/<port>.pid`). */
export function startNode(dir: string, port: number): void {
  const started = spawnSync('redis-server', [nodeConfigPath(dir, port)], { encoding: 'utf8' });
  if (started.status !== 0) throw new Error(`redis-server on ${port} did not start: ${started.stderr || started.stdout}`);
}

export function portsOf(dir: string): number[] {
  return JSON.parse(readFileSync(join(dir, 'ports.json'), 'utf8')) as number[];
}

async function start(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const ports = await clusterPorts(6);
  writeFileSync(join(dir, 'ports.json'), JSON.stringify(ports));
  for (const port of ports) {
    const nodeDir = join(dir, String(port));
    mkdirSync(nodeDir, { recursive: true });
    writeFileSync(
      nodeConfigPath(dir, port),
      [
        `port ${port}`,
        'bind 127.0.0.1',
        'daemonize yes',
        `pidfile ${join(dir, `${port}.pid`)}`,
        `dir ${nodeDir}`,
        `logfile ${join(nodeDir, 'redis.log')}`,
        'cluster-enabled yes',
        'cluster-config-file nodes.conf',
        // A dead master is replaced by its replica after about this long.
        'cluster-node-timeout 2000',
        'save ""',
        'appendonly no',
        'maxmemory-policy noeviction',
        '',
      ].join('\n'),
    );
    startNode(dir, port);
  }
  for (const port of ports) {
    for (let i = 0; i < 100 && !/PONG/.test(cli(port, 'ping')); i++) await sleep(50);
  }
  const created = spawnSync(
    'redis-cli',
    ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stderr || created.stdout}`);
  const ready = () =>
    ports.every((p) => /cluster_state:ok/.test(cli(p, 'cluster', 'info'))) &&
    (cli(ports[0]!, 'cluster', 'nodes').match(/\bslave\b/g) ?? []).length === 3;
  for (let i = 0; i < 300 && !ready(); i++) await sleep(100);
  if (!ready()) throw new Error('the cluster did not reach cluster_state:ok with three replicas');
  // Replicas must have synced before a failover can be asked of them.
  for (let i = 0; i < 100; i++) {
    const linked = ports.filter((p) => /role:slave/.test(cli(p, 'info', 'replication'))).every((p) => /master_link_status:up/.test(cli(p, 'info', 'replication')));
    if (linked) break;
    await sleep(100);
  }
  return `redis+cluster://${ports.slice(0, 3).map((p) => `127.0.0.1:${p}`).join(',')}`;
}

function stop(dir: string): void {
  if (!existsSync(dir)) return;
  for (const file of readdirSync(dir).filter((f) => /^\d+\.pid$/.test(f))) {
    const pid = Number(readFileSync(join(dir, file), 'utf8').trim());
    if (pid > 0) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

const [command, dirArg] = process.argv.slice(2);
if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('redis-cluster.ts')) {
  if (!dirArg || (command !== 'start' && command !== 'stop')) {
    process.stderr.write('usage: redis-cluster.ts start|stop <dir>\n');
    process.exit(2);
  }
  const dir = resolve(dirArg);
  if (command === 'start') {
    try {
      process.stdout.write(`${await start(dir)}\n`);
    } catch (err) {
      stop(dir);
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    }
  } else {
    stop(dir);
  }
}
