/**
 * Stable ids of interactive elements. Handlers in handlers/actions/ listen on these; renderers put
 * them on buttons. Values carry the incident id (or query id), never anything secret.
 */
export const ACTION_IDS = {
  acknowledge: 'incident_acknowledge',
  unacknowledge: 'incident_unacknowledge',
  silence: 'incident_silence',
  unsilence: 'incident_unsilence',
  tuningAdvice: 'incident_tuning_advice',
  openDatabricks: 'incident_open_databricks',
  homeUnsilence: 'home_unsilence',
  homeRefresh: 'home_refresh',
} as const;

export const VIEW_IDS = {
  adviceModal: 'advice_modal',
} as const;

/** Silence durations offered on alerts (value = milliseconds). */
export const SILENCE_CHOICES: { label: string; ms: number }[] = [
  { label: '30 minutes', ms: 30 * 60_000 },
  { label: '2 hours', ms: 2 * 3_600_000 },
  { label: '8 hours', ms: 8 * 3_600_000 },
  { label: '24 hours', ms: 24 * 3_600_000 },
];
