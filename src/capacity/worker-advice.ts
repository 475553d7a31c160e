/**
 * Capacity advice in the unit people change. The engine says how much more throughput a query needs
 * (`Advice.throughputFactor`, from the load factor); on a known cluster that becomes workers:
 * `ceil(workers × factor)` for a fixed size, `ceil(max × factor)` for the autoscale max. Pure.
 */
import type { Advice, Incident } from '../diagnosis/types.js';
import type { StreamCluster } from './stream-cluster.js';

export interface WorkerChange {
  setting: 'num_workers' | 'autoscale.max_workers';
  from: number;
  to: number;
}

/** Float noise (20 × 1.05 = 21.000000000000004) must not add a worker. */
const EPSILON = 1e-9;

/** The worker count the factor asks for, or null when it asks for no more (factor ≤ 1) or the cluster is single-node. */
export function workersNeeded(factor: number, cluster: StreamCluster): WorkerChange | null {
  if (!Number.isFinite(factor) || factor <= 1) return null;
  const size = cluster.size;
  const from = size.kind === 'fixed' ? size.workers : size.maxWorkers;
  // A single-node cluster (0 workers) does not scale by a factor: today's wording says what to do.
  if (from < 1) return null;
  const to = Math.ceil(from * factor - EPSILON);
  if (to <= from) return null;
  return { setting: size.kind === 'fixed' ? 'num_workers' : 'autoscale.max_workers', from, to };
}

/** Where the cluster is, as people find it in the job's settings. */
export function clusterLabel(cluster: StreamCluster): string {
  if (cluster.jobClusterKey !== null) return `job cluster ${code(cluster.jobClusterKey)}`;
  return `the cluster of task ${code(cluster.taskKey ?? '?')}`;
}

function code(text: string): string {
  return `\`${text.replace(/`/g, 'ˋ').replace(/\s+/g, ' ').slice(0, 100)}\``;
}

function number(value: number, digits = 2): string {
  return value.toFixed(digits).replace(/\.?0+$/, '');
}

/**
 * The factor as the sum shows it: two decimals, more only when two would round up to a different
 * worker count. The product is worked from this figure, so operands and result agree when checked
 * by hand (2 × 1.26 = 2.52, never 2.53 from an unrounded 1.2649).
 */
function shownFactor(factor: number, change: WorkerChange): { text: string; digits: number } {
  for (let digits = 2; digits < 6; digits += 1) {
    const text = number(factor, digits);
    if (Math.ceil(change.from * Number(text) - EPSILON) === change.to) return { text, digits };
  }
  return { text: String(factor), digits: 12 };
}

/** The sentence the engine's capacity advice opens with; what follows it (trigger interval) is kept. */
const ENGINE_LEAD_END = 'more or larger workers.';

/** A purpose the engine's lead may open with, before "give the query …". */
const PURPOSE = /^(To [^,:]+), give the query /;

/**
 * The engine's capacity advice said in workers of the cluster, or null when it is not capacity
 * advice or the cluster gives no worker change (then today's wording stays).
 */
export function capacityAdviceInWorkers(advice: Advice, cluster: StreamCluster): Advice | null {
  const factor = advice.throughputFactor;
  if (factor === undefined) return null;
  const change = workersNeeded(factor, cluster);
  if (!change) return null;
  const cores = cluster.coresPerWorker;
  const where = clusterLabel(cluster);
  const what =
    change.setting === 'num_workers'
      ? `Raise \`num_workers\` from ${change.from} to ${change.to} on ${where}${cores !== null ? ` (${cores} cores each, ${change.from * cores} → ${change.to * cores} cores)` : ''}`
      : `Raise autoscale max from ${change.from} to ${change.to} workers on ${where}${cores !== null ? ` (${cores} cores each, at most ${change.from * cores} → ${change.to * cores} cores)` : ''}`;
  const basis = advice.loadFactor !== undefined ? ` (load factor ${advice.loadFactor.toFixed(2)} plus headroom to drain the backlog)` : '';
  const shown = shownFactor(factor, change);
  const figure = `${change.from} × ${shown.text} = ${number(change.from * Number(shown.text), shown.digits)}, rounded up`;
  const at = advice.text.indexOf(ENGINE_LEAD_END);
  const rest = at >= 0 ? advice.text.slice(at + ENGINE_LEAD_END.length).trim() : '';
  // The lead's purpose ("To drain within 30m instead of about 4h, give the query …") is what the
  // figure is for: it stays in front.
  const purpose = at >= 0 ? PURPOSE.exec(advice.text.slice(0, at))?.[1] : undefined;
  const action = purpose ? `${purpose}, ${what[0]!.toLowerCase()}${what.slice(1)}` : what;
  return {
    ...advice,
    text: `${action}: the query needs about ${shown.text}× its current throughput${basis}, and ${figure}.${rest ? ` ${rest}` : ''}`,
    setting: change.setting,
    value: String(change.to),
  };
}

/** The incident with every capacity advice item said in workers (the same object when nothing changes). */
export function incidentInWorkers(incident: Incident, cluster: StreamCluster): Incident {
  let changed = false;
  const advice = incident.advice.map((item) => {
    const converted = capacityAdviceInWorkers(item, cluster);
    if (converted) changed = true;
    return converted ?? item;
  });
  return changed ? { ...incident, advice } : incident;
}
