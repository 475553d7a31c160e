/** Number formats for summaries, evidence and advice: short, unambiguous, plain text. */
import { formatDuration } from '../util/duration.js';

/**
 * One style for every number people read (engine summaries, evidence and advice, the text report,
 * Slack alerts and lists): `950`, `12.6K`, `4.57M`, `1.2B`; three significant digits, no trailing
 * zeros, upper-case suffixes.
 */
export function count(value: number): string {
  const abs = Math.abs(value);
  if (abs < 1e3) {
    if (Number.isInteger(value) || abs >= 100) return String(Math.round(value));
    return trimZeros(value.toFixed(1));
  }
  for (let unit = COUNT_UNITS.length - 1; unit >= 0; unit -= 1) {
    const [size, suffix] = COUNT_UNITS[unit]!;
    if (abs < size) continue;
    const text = significant(value / size);
    // 999,999 reads 1000K at three digits: say 1M.
    if (Math.abs(Number(text)) >= 1000 && unit < COUNT_UNITS.length - 1) return `${significant(value / COUNT_UNITS[unit + 1]![0])}${COUNT_UNITS[unit + 1]![1]}`;
    return `${text}${suffix}`;
  }
  return String(Math.round(value));
}

const COUNT_UNITS: [number, string][] = [
  [1e3, 'K'],
  [1e6, 'M'],
  [1e9, 'B'],
  [1e12, 'T'],
];

/** Rows per second: `12.6K rows/s`. */
export function rate(value: number): string {
  return `${count(value)} rows/s`;
}

/** `1.2K files waiting, +7 per minute` / `−3 per minute` / `steady`. */
export function filesWaiting(files: number, trendPerMin: number | null): string {
  const head = `${count(files)} files waiting`;
  if (trendPerMin === null) return head;
  if (Math.abs(trendPerMin) < 0.5) return `${head}, steady`;
  return `${head}, ${trendPerMin > 0 ? '+' : '−'}${count(Math.abs(trendPerMin))} per minute`;
}

export function seconds(sec: number): string {
  return formatDuration(sec * 1000);
}

export function ms(value: number): string {
  return formatDuration(value);
}

/** Bytes in binary units with their binary labels: `512 B`, `3.1 GiB`, `12 MiB`. */
export function bytes(value: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = value;
  let unit = 0;
  while (Math.abs(v) >= 1024 && unit < units.length - 1) {
    v /= 1024;
    unit += 1;
  }
  // 1023.96 MiB reads 1024 MiB at one decimal: say 1 GiB.
  if (unit > 0 && unit < units.length - 1 && Math.abs(Number(trim(v))) >= 1024) {
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

/** Three significant digits (for values 1 to 999.x), trailing zeros dropped. */
function significant(value: number): string {
  const abs = Math.abs(value);
  return trimZeros(value.toFixed(abs >= 100 ? 0 : abs >= 10 ? 1 : 2));
}

function trimZeros(text: string): string {
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

/** ISO-8601 of epoch ms; clamped to the dates JavaScript can print (forecasts can be far out). */
export function iso(epochMs: number): string {
  const clamped = Number.isFinite(epochMs) ? Math.max(-8.64e15, Math.min(8.64e15, epochMs)) : 0;
  return new Date(clamped).toISOString();
}
