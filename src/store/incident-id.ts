import type { Incident } from '../diagnosis/types.js';

/**
 * Deterministic incident id: `<queryId>.<kind>.<openedAtMs>`. Retries and replays produce the same
 * id, BullMQ job ids built from it go through `safeJobId`. Kinds never contain dots, so the
 * query id is everything before the last two dots.
 */
export function incidentIdOf(queryId: string, incident: Pick<Incident, 'kind' | 'openedAt'>): string {
  const opened = Date.parse(incident.openedAt);
  const openedPart = Number.isFinite(opened) ? String(opened) : incident.openedAt.replace(/[^0-9A-Za-z-]/g, '');
  return `${queryId}.${incident.kind}.${openedPart}`;
}

/** The query id and kind an incident id was built from; null if it is not one. */
export function parseIncidentId(id: string): { queryId: string; kind: string; opened: string } | null {
  const last = id.lastIndexOf('.');
  if (last <= 0) return null;
  const prev = id.lastIndexOf('.', last - 1);
  if (prev <= 0) return null;
  return { queryId: id.slice(0, prev), kind: id.slice(prev + 1, last), opened: id.slice(last + 1) };
}
