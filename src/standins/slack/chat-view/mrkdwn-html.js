// Slack mrkdwn → safe HTML, for the chat view (browser) and its tests (Node). No dependencies.
// Safety rule: every piece of text is HTML-escaped before any markup is added, and the only markup
// added is a fixed set of tags; link targets must be http(s) or mailto.

const ENTITY = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ENTITY[c]);
}

/** Slack escapes &, < and > in message text; undo that before escaping for HTML. */
function decodeSlack(text) {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

export function isSafeHref(url) {
  return /^(https?:\/\/|mailto:)/i.test(String(url ?? '').trim());
}

const EMOJI = {
  white_check_mark: '✅', warning: '⚠️', rotating_light: '🚨', red_circle: '🔴', large_green_circle: '🟢',
  large_yellow_circle: '🟡', large_orange_circle: '🟠', x: '❌', heavy_check_mark: '✔️', hourglass: '⌛',
  hourglass_flowing_sand: '⏳', chart_with_upwards_trend: '📈', chart_with_downwards_trend: '📉', mag: '🔍',
  bell: '🔔', no_bell: '🔕', zzz: '💤', wrench: '🔧', bulb: '💡', fire: '🔥', eyes: '👀', snail: '🐌',
  turtle: '🐢', tada: '🎉', information_source: 'ℹ️', stopwatch: '⏱️', calendar: '📅', link: '🔗',
  bar_chart: '📊', gear: '⚙️', thinking_face: '🤔', wave: '👋', memo: '📝', books: '📚', clock3: '🕒',
};

function pad(n) {
  return String(n).padStart(2, '0');
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Renders `<!date^epoch^format|fallback>` in the viewer's local time, as Slack does. */
export function formatSlackDate(epochSec, format, nowMs = Date.now()) {
  const d = new Date(epochSec * 1000);
  if (Number.isNaN(d.getTime())) return null;
  const now = new Date(nowMs);
  const sameDay = (a, b) => a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
  const yesterday = new Date(nowMs - 86_400_000);
  const tomorrow = new Date(nowMs + 86_400_000);
  const pretty = (fallback) => (sameDay(d, now) ? 'Today' : sameDay(d, yesterday) ? 'Yesterday' : sameDay(d, tomorrow) ? 'Tomorrow' : fallback);
  const dateLong = `${DAYS[d.getDay()]}, ${MONTHS[d.getMonth()]} ${d.getDate()}, ${d.getFullYear()}`;
  const date = `${MONTHS[d.getMonth()]} ${d.getDate()}, ${d.getFullYear()}`;
  const dateShort = `${MONTHS[d.getMonth()].slice(0, 3)} ${d.getDate()}, ${d.getFullYear()}`;
  const ago = () => {
    const s = Math.round((nowMs - d.getTime()) / 1000);
    const abs = Math.abs(s);
    const unit = abs < 60 ? [abs, 'second'] : abs < 3600 ? [Math.round(abs / 60), 'minute'] : abs < 86400 ? [Math.round(abs / 3600), 'hour'] : [Math.round(abs / 86400), 'day'];
    const text = `${unit[0]} ${unit[1]}${unit[0] === 1 ? '' : 's'}`;
    return s >= 0 ? `${text} ago` : `in ${text}`;
  };
  const tokens = {
    date_num: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`,
    date,
    date_short: dateShort,
    date_long: dateLong,
    date_pretty: pretty(date),
    date_short_pretty: pretty(dateShort),
    date_long_pretty: pretty(dateLong),
    time: `${pad(d.getHours())}:${pad(d.getMinutes())}`,
    time_secs: `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`,
    ago: ago(),
  };
  return format.replace(/\{(\w+)\}/g, (m, key) => (key in tokens ? tokens[key] : m));
}

/**
 * One `<…>` token → HTML. `ctx.users` / `ctx.channels` map ids to names.
 */
function renderToken(body, ctx) {
  const [target, ...labelParts] = body.split('|');
  const label = labelParts.length ? decodeSlack(labelParts.join('|')) : undefined;
  if (target.startsWith('@')) {
    const id = target.slice(1);
    const name = ctx.users?.[id] ?? label ?? id;
    return `<span class="mention" data-user="${escapeHtml(id)}">@${escapeHtml(name)}</span>`;
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    const name = ctx.channels?.[id] ?? label ?? id;
    return `<a class="mention channel-link" href="#channel=${encodeURIComponent(id)}">#${escapeHtml(name)}</a>`;
  }
  if (target.startsWith('!')) {
    const [kind, ...rest] = target.slice(1).split('^');
    if (kind === 'date') {
      const formatted = formatSlackDate(Number(rest[0]), decodeSlack(rest[1] ?? '{date}'), ctx.nowMs);
      return `<time>${escapeHtml(formatted ?? label ?? '')}</time>`;
    }
    if (kind === 'subteam') return `<span class="mention">${escapeHtml(label ?? '@group')}</span>`;
    return `<span class="mention">@${escapeHtml(label ?? kind)}</span>`;
  }
  const url = decodeSlack(target);
  if (isSafeHref(url)) {
    return `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer">${escapeHtml(label ?? url)}</a>`;
  }
  // Not a link Slack would render: show it as text.
  return escapeHtml(`<${decodeSlack(body)}>`);
}

/** Inline styles on escaped text; placeholders (\u0000n\u0000) stand for already-rendered HTML. */
function inlineStyles(html) {
  const edge = '(^|[\\s(\\u0000>"\\-])';
  const end = '(?=$|[\\s).,!?;:\\u0000<"\\-])';
  return html
    .replace(new RegExp(`${edge}\\*(?!\\s)([^*\\n]*?[^*\\s])\\*${end}`, 'g'), '$1<b>$2</b>')
    .replace(new RegExp(`${edge}_(?!\\s)([^_\\n]*?[^_\\s])_${end}`, 'g'), '$1<i>$2</i>')
    .replace(new RegExp(`${edge}~(?!\\s)([^~\\n]*?[^~\\s])~${end}`, 'g'), '$1<s>$2</s>')
    .replace(/:([a-z0-9_+-]+):/g, (m, name) => EMOJI[name] ?? m);
}

/**
 * Slack mrkdwn → HTML: ```pre```, `code`, *bold*, _italic_, ~strike~, <links|label>, <@U…>, <#C…>,
 * <!date…>, `>` quotes, bullet lines, line breaks. Safe for innerHTML.
 */
export function mrkdwnToHtml(text, ctx = {}) {
  // NUL marks placeholders below; it has no business in message text.
  const source = String(text ?? '').replace(/\u0000/g, '');
  const slots = [];
  const slot = (html) => `\u0000${slots.push(html) - 1}\u0000`;
  // 1. Code first: nothing inside code is formatted.
  let work = source.replace(/```\n?([\s\S]*?)```/g, (m, code) => slot(`<pre>${escapeHtml(decodeSlack(code))}</pre>`));
  work = work.replace(/`([^`\n]+)`/g, (m, code) => slot(`<code>${escapeHtml(decodeSlack(code))}</code>`));
  // 2. Links and mentions.
  work = work.replace(/<([^<>\n]+)>/g, (m, body) => slot(renderToken(body, ctx)));
  // 3. Everything left is text: decode Slack's escapes, escape for HTML, then style.
  const lines = work.split('\n').map((line) => {
    let quote = false;
    let raw = line;
    if (/^(>|&gt;)\s?/.test(raw)) {
      quote = true;
      raw = raw.replace(/^(>|&gt;)\s?/, '');
    }
    let html = inlineStyles(escapeHtml(decodeSlack(raw)));
    const bullet = /^\s*([•◦▪-])\s+/.exec(decodeSlack(raw));
    if (bullet) html = `<span class="list-item">${html}</span>`;
    return { html, quote };
  });
  const out = [];
  for (let i = 0; i < lines.length; i += 1) {
    const { html, quote } = lines[i];
    if (quote) {
      const group = [html];
      while (i + 1 < lines.length && lines[i + 1].quote) group.push(lines[(i += 1)].html);
      out.push(`<blockquote>${group.join('<br>')}</blockquote>`);
    } else {
      out.push(html);
    }
  }
  let html = '';
  out.forEach((part, i) => {
    const previousIsBlock = i > 0 && /<\/blockquote>$/.test(out[i - 1]);
    if (i > 0 && !previousIsBlock && !part.startsWith('<blockquote>')) html += '<br>';
    html += part;
  });
  // 4. Put the rendered pieces back.
  return html.replace(/\u0000(\d+)\u0000/g, (m, n) => slots[Number(n)] ?? '');
}

/** plain_text objects: escaped, emoji shortcodes turned on when `emoji` is not false. */
export function plainToHtml(text, emoji = true) {
  const html = escapeHtml(text).replace(/\n/g, '<br>');
  return emoji ? html.replace(/:([a-z0-9_+-]+):/g, (m, name) => EMOJI[name] ?? m) : html;
}

/** A text object (plain_text or mrkdwn) → HTML. */
export function textObjectToHtml(obj, ctx = {}) {
  if (!obj || typeof obj !== 'object') return '';
  if (obj.type === 'mrkdwn') return obj.verbatim ? plainToHtml(obj.text, false) : mrkdwnToHtml(obj.text, ctx);
  return plainToHtml(obj.text, obj.emoji !== false);
}
