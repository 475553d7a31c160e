/**
 * Every default of StreamDoctor's settings, in one place. The environment schema (env.ts), the
 * runtime and the store read them from here; docs/production.md's table shows them (checked by
 * test/demo/production-docs.test.ts).
 */
export const DEFAULTS = {
  /** Redis key and BullMQ queue prefix (`STREAMDOCTOR_PREFIX`). */
  prefix: 'sd',
  /** HTTP port (`PORT`). */
  port: 3000,
  /** pino level (`LOG_LEVEL`). */
  logLevel: 'info',
  /** Poll cadence per source when neither the environment (`STREAMDOCTOR_POLL_SECONDS`) nor the watch file (`poll_interval`) says. */
  pollSeconds: 60,
  /** Daily digest time, `HH:MM` (`STREAMDOCTOR_DIGEST_AT`). */
  digestAt: '09:00',
  /** IANA zone of the digest (`STREAMDOCTOR_TIME_ZONE`). */
  timeZone: 'UTC',
  /** Alert-storm window (`STREAMDOCTOR_STORM_WINDOW_SECONDS`). */
  stormWindowSeconds: 30,
  /** Openings per channel within the window that form one grouped message (`STREAMDOCTOR_STORM_THRESHOLD`). */
  stormThreshold: 2,
  /** How long a source's reads fail before its "cannot read" incident (`STREAMDOCTOR_SOURCE_FAILING_SECONDS`). */
  sourceFailingSeconds: 300,
  /** Where `streamdoctor local-slack` sends signed requests (`SLACK_REQUEST_URL`). */
  slackRequestUrl: 'http://127.0.0.1:3000/slack/events',
} as const;
