/**
 * Deterministic BullMQ job ids. BullMQ refuses ':' in custom ids and treats all-digit ids as its
 * own counters, so ids are prefixed with the job kind and ':' is replaced.
 */
export function safeJobId(...parts: (string | number)[]): string {
  return parts.map((part) => String(part).replace(/:/g, '_')).join('.');
}
