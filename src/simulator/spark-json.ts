/**
 * Renders a raw progress object the way Spark does: compact like `progress.json` (what a listener
 * writes to a table or a log line) or pretty like `progress.prettyJson` (what `println(lastProgress)`
 * shows). Key order is the object's insertion order, which the simulator builds in Spark's order.
 * The rates are Scala doubles, so they print in Java form ("0.0", not "0").
 */

import { javaDoubleToString } from './java-format.js';

/** Keys whose numeric values Spark serializes as doubles; every other number is a long. */
const DOUBLE_KEYS = new Set(['inputRowsPerSecond', 'processedRowsPerSecond']);

function scalar(value: unknown, key: string | null): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') {
    if (key !== null && DOUBLE_KEYS.has(key)) return javaDoubleToString(value);
    return Number.isInteger(value) ? String(value) : javaDoubleToString(value);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(value);
}

/** Compact JSON in Spark's form (no spaces), e.g. one JSON Lines record. */
export function toSparkJson(value: unknown, key: string | null = null): string {
  if (Array.isArray(value)) return `[${value.map((item) => toSparkJson(item)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      parts.push(`${JSON.stringify(k)}:${toSparkJson(v, k)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return scalar(value, key);
}

/** Pretty JSON in json4s/Jackson's style: `"key" : value`, two-space indent, `[ {` … `} ]`, `[ ]`. */
export function toSparkPrettyJson(value: unknown, key: string | null = null, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[ ]';
    return `[ ${value.map((item) => toSparkPrettyJson(item, null, indent)).join(', ')} ]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{ }';
    const lines = entries.map(
      ([k, v]) => `${inner}${JSON.stringify(k)} : ${toSparkPrettyJson(v, k, inner)}`,
    );
    return `{\n${lines.join(',\n')}\n${indent}}`;
  }
  return scalar(value, key);
}
