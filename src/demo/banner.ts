/**
 * The one screen printed when the demo starts: where to look, what is running, and what to try.
 * Pure, so the test can read exactly what a person sees.
 */

export interface BannerStream {
  name: string;
  /** One line on what this stream will do, e.g. "falls behind (15 % overload) after about 20 s". */
  story: string;
  channel: string;
}

export interface BannerInput {
  /** The chat view, e.g. http://localhost:3000. */
  chatUrl: string;
  /** The app's own HTTP endpoint (Slack requests, /healthz, /metrics). */
  appUrl: string;
  /** The local Databricks base URL. */
  databricksUrl: string;
  /** Redis as shown to people (password masked) and where it came from. */
  redis: string;
  streams: BannerStream[];
  /** Simulated seconds per wall-clock second. */
  speedup: number;
  /** Channel the lag alert goes to, e.g. #stream-orders. */
  lagChannel: string;
  /** Whether colour escapes may be used (a TTY). @defaultValue false */
  color?: boolean;
}

export function renderBanner(input: BannerInput): string {
  const bold = (text: string) => (input.color ? `\u001b[1m${text}\u001b[22m` : text);
  const cyan = (text: string) => (input.color ? `\u001b[36m${text}\u001b[39m` : text);
  const width = Math.max(...input.streams.map((stream) => stream.name.length));
  const lines = [
    '',
    bold('StreamDoctor demo') + ` — no Slack or Databricks credentials set, so everything runs locally.`,
    '',
    `  Open the chat view:  ${bold(cyan(input.chatUrl))}`,
    '',
    `  Streams on the local Databricks, in ${input.speedup}× time (a minute here is ${input.speedup} min there, and in the alerts):`,
    ...input.streams.map((stream) => `    ${stream.name.padEnd(width)}  ${stream.story}  → ${stream.channel}`),
    '',
    '  What to try:',
    `    - open ${input.lagChannel}: within about a minute a lag alert appears; click Acknowledge`,
    '    - type  /stream status  in the message box; /stream help  lists the rest',
    '    - read the evidence in the alert; "Tuning advice" says what to change, with numbers; the thread keeps the timeline',
    '',
    `  App ${input.appUrl} (POST /slack/events, /healthz, /metrics)`,
    `  Local Databricks ${input.databricksUrl} · Redis ${input.redis}`,
    '  Ctrl-C stops everything. With SLACK_* and DATABRICKS_* set, `npm start` runs for real: docs/production.md',
    '',
  ];
  return lines.join('\n');
}
