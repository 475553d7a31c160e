/** Number formats for summaries, evidence and advice: short, unambiguous, plain text. */
import { formatDuration } from '../util/duration.js';

export function count(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e9) return `${trim(value / 1e9)}B`;
  if (abs >= 1e6) return `${trim(value / 1e6)}M`;
  if (abs >= 1e4) return `${trim(value / 1e3)}k`;
  return String(Math.round(value));
}

export function rate(value: number): string {
  return `${count(value)}/s`;
}

export function seconds(sec: number): string {
  return formatDuration(sec * 1000);
}

export function ms(value: number): string {
  return formatDuration(value);
}

export function bytes(value: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = value;
  let unit = 0;
  while (Math.abs(v) >= 1024 && unit < units.length - 1) {
    v /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? Math.round(v) : trim(v)} ${units[unit]}`;
}

export function factor(value: number): string {
  return `${value.toFixed(value >= 10 ? 0 : 2).replace(/\.?0+$/, '')}×`;
}

export function percent(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}

/** Rounds up to 2 significant digits, so advised settings read like numbers people choose. */
export function niceCeil(value: number): number {
  if (!(value > 0)) return 0;
  const magnitude = 10 ** Math.max(0, Math.floor(Math.log10(value)) - 1);
  return Math.ceil(value / magnitude) * magnitude;
}

function trim(value: number): string {
  return value.toFixed(Math.abs(value) >= 100 ? 0 : 1).replace(/\.0$/, '');
}

/** ISO-8601 of epoch ms; clamped to the dates JavaScript can print (forecasts can be far out). */
export function iso(epochMs: number): string {
  const clamped = Number.isFinite(epochMs) ? Math.max(-8.64e15, Math.min(8.64e15, epochMs)) : 0;
  return new Date(clamped).toISOString();
}
