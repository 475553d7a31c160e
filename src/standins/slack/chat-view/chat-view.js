// The chat view: channels, the bot's messages rendered from Block Kit, threads, ephemerals, the App
// Home and modals. Everything the person does goes through the admin API, which turns it into the
// signed requests Slack would send the app. All message text reaches the DOM through
// block-kit-html.js / mrkdwn-html.js, which escape before adding markup.
import { blocksHtml, messageBodyHtml } from './block-kit-html.js';
import { escapeHtml, plainToHtml } from './mrkdwn-html.js';

const $ = (id) => document.getElementById(id);

const ui = {
  workspace: null,
  channel: null,
  user: null,
  mode: 'channel', // 'channel' | 'home'
  thread: null, // ts of the open thread
  highlight: null,
  refreshTimer: null,
  seen: {}, // channel id → latest ts the person has had on screen
  busy: false,
};

async function api(path, body) {
  const response = await fetch(`/admin/${path}`, body === undefined
    ? { headers: { accept: 'application/json' } }
    : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await response.json().catch(() => ({ ok: false, error: `HTTP ${response.status}` }));
  if (!response.ok && json.ok !== false) json.ok = false;
  return json;
}

function toast(text, isError = false) {
  const el = $('toast');
  el.textContent = text;
  el.className = `toast${isError ? ' error' : ''}`;
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; }, isError ? 6000 : 2500);
}

function reportOutcome(result, what) {
  if (result.ok) return;
  const reason = result.error === 'dispatch_failed' && result.failure === 'no_request_url'
    ? 'the app is not connected (no request URL set)'
    : result.error ?? 'unknown error';
  toast(`${what} failed: ${reason}`, true);
}

function renderContext() {
  const ws = ui.workspace;
  const users = Object.fromEntries(ws.users.map((u) => [u.id, u.name]));
  for (const b of ws.bots) users[b.user_id] = b.name;
  return {
    users,
    channels: Object.fromEntries(ws.channels.map((c) => [c.id, c.name])),
    userList: ws.users.map((u) => ({ id: u.id, name: u.real_name })),
    channelList: ws.channels.map((c) => ({ id: c.id, name: `#${c.name}` })),
  };
}

function author(message) {
  const ws = ui.workspace;
  const bot = ws.bots.find((b) => b.user_id === message.user);
  if (bot || message.bot_id) return { name: bot?.name ?? message.bot_profile?.name ?? 'app', bot: true, index: 0 };
  const index = ws.users.findIndex((u) => u.id === message.user);
  return { name: ws.users[index]?.real_name ?? message.user ?? 'someone', bot: false, index: index + 1 };
}

function timeOf(ts) {
  const d = new Date(Number(String(ts).split('.')[0]) * 1000);
  return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

function messageHtml(message, ctx, { inThread = false } = {}) {
  const who = author(message);
  const initials = escapeHtml(who.name.split(/\s+/).map((p) => p[0] ?? '').join('').slice(0, 2).toUpperCase());
  const ephemeral = message.is_ephemeral === true;
  const echo = message.ephemeral_source === 'command_echo';
  const classes = ['message', ephemeral ? 'ephemeral' : '', echo ? 'command-echo' : '', ui.highlight === message.ts ? 'highlight' : ''].filter(Boolean).join(' ');
  const replies = !inThread && message.reply_count > 0
    ? `<button type="button" class="thread-link" data-open-thread="${escapeHtml(message.ts)}" data-testid="thread-link">${message.reply_count} ${message.reply_count === 1 ? 'reply' : 'replies'}</button>`
    : '';
  const note = ephemeral ? `<div class="ephemeral-note">👁 Only visible to you</div>` : '';
  const body = echo ? `<div class="bk-text">${escapeHtml(message.text)}</div>` : messageBodyHtml(message, ctx);
  return `<article class="${classes}" data-testid="message" data-ts="${escapeHtml(message.ts)}" data-channel="${escapeHtml(ui.channel ?? '')}" data-ephemeral="${ephemeral}">
    <div class="avatar${who.bot ? ' bot' : ` user-${((who.index - 1) % 3) + 1}`}" aria-hidden="true">${initials}</div>
    <div class="content">
      <div class="meta"><span class="author">${escapeHtml(who.name)}</span>${who.bot ? '<span class="app-badge">APP</span>' : ''}<span class="time">${escapeHtml(timeOf(message.ts))}</span>${message.edited ? '<span class="edited">(edited)</span>' : ''}</div>
      ${note}<div class="body" data-testid="message-body">${body}</div>${replies}
    </div>
  </article>`;
}

function applyColours(root) {
  // Attachment colours through the CSSOM: the CSP forbids inline style attributes.
  for (const el of root.querySelectorAll('[data-color]')) el.style.borderLeftColor = el.dataset.color;
}

/**
 * Puts `entries` ({ key, html }) into `root` in order, keeping the node of every entry whose HTML did
 * not change: a refresh runs on every event, and replacing the whole list would detach the message
 * a person is reading, selecting text in, or about to click.
 */
function patchChildren(root, entries) {
  const kept = new Map();
  for (const el of root.children) if (el.dataset.key !== undefined) kept.set(el.dataset.key, el);
  const nodes = entries.map(({ key, html }) => {
    const old = kept.get(key);
    if (old && old.renderedHtml === html) return old;
    const template = document.createElement('template');
    template.innerHTML = html;
    const el = template.content.firstElementChild;
    el.dataset.key = key;
    el.renderedHtml = html;
    applyColours(el);
    return el;
  });
  // Stale nodes go first: left in front of the kept ones, they would make every kept node move.
  const wanted = new Set(nodes);
  for (const el of [...root.children]) if (!wanted.has(el)) el.remove();
  // Then move only what is out of place, so nodes already in position stay attached throughout.
  nodes.forEach((node, i) => {
    if (root.children[i] !== node) root.insertBefore(node, root.children[i] ?? null);
  });
}

function messageKey(message) {
  return `${message.is_ephemeral === true ? 'e' : 'm'}:${message.ts}`;
}

function merge(messages, ephemerals) {
  return [...messages, ...ephemerals].sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
}

async function renderChannel() {
  const list = $('messages');
  const ch = ui.workspace.channels.find((c) => c.id === ui.channel);
  $('title').textContent = ch ? `#${ch.name}` : '#?';
  $('subtitle').textContent = ch?.purpose ?? '';
  const data = await api(`channels/${encodeURIComponent(ui.channel)}/messages?user=${encodeURIComponent(ui.user)}`);
  if (!data.ok) {
    list.innerHTML = `<div class="empty">${escapeHtml(data.error)}</div>`;
    return;
  }
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 80;
  const ctx = renderContext();
  const all = merge(data.messages, data.ephemerals);
  const older = data.omitted > 0 ? `<div class="empty">${data.omitted} older ${data.omitted === 1 ? 'message' : 'messages'} not shown</div>` : '';
  const entries = all.map((m) => ({ key: messageKey(m), html: messageHtml(m, ctx) }));
  if (data.omitted > 0) entries.unshift({ key: 'older', html: older });
  if (!all.length) entries.push({ key: 'empty', html: `<div class="empty">No messages in #${escapeHtml(ch?.name ?? '')} yet. Try <code>${escapeHtml(ui.workspace.command)} help</code>.</div>` });
  patchChildren(list, entries);
  if (ui.highlight) list.querySelector(`[data-ts="${CSS.escape(ui.highlight)}"]`)?.scrollIntoView({ block: 'center' });
  else if (atBottom || !renderChannel.scrolled) {
    list.scrollTop = list.scrollHeight;
    renderChannel.scrolled = true;
  }
}

async function renderThread() {
  const panel = $('thread-panel');
  if (!ui.thread) {
    panel.hidden = true;
    return;
  }
  const data = await api(`channels/${encodeURIComponent(ui.channel)}/threads/${encodeURIComponent(ui.thread)}?user=${encodeURIComponent(ui.user)}`);
  if (!data.ok) {
    ui.thread = null;
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const ctx = renderContext();
  const [parent, ...replies] = data.messages;
  const rest = merge(replies, data.ephemerals);
  const box = $('thread-messages');
  patchChildren(box, [
    { key: `parent:${parent.ts}`, html: messageHtml(parent, ctx, { inThread: true }) },
    { key: 'divider', html: `<div class="thread-divider">${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}</div>` },
    ...rest.map((m) => ({ key: messageKey(m), html: messageHtml(m, ctx, { inThread: true }) })),
  ]);
  box.scrollTop = box.scrollHeight;
}

async function renderHome() {
  const home = $('home');
  $('title').textContent = `${ui.workspace.bot.name} · Home`;
  $('subtitle').textContent = 'The App Home, as published with views.publish';
  const data = await api(`home?user=${encodeURIComponent(ui.user)}`);
  home.innerHTML = data.view
    ? `<div data-view-id="${escapeHtml(data.view.id)}">${blocksHtml(data.view.blocks, renderContext())}</div>`
    : '<div class="empty">The app has not published a Home tab for you yet.</div>';
  applyColours(home);
}

async function renderModals() {
  const root = $('modal-root');
  const data = await api(`modals?user=${encodeURIComponent(ui.user)}`);
  const top = data.stack?.[data.stack.length - 1];
  if (!top) {
    root.hidden = true;
    root.innerHTML = '';
    return;
  }
  if (root.dataset.hash === top.hash && !root.hidden) return; // do not wipe what the person is typing
  root.dataset.hash = top.hash;
  const ctx = { ...renderContext(), errors: top.errors };
  const submit = top.submit ? `<button type="submit" class="bk-button primary" data-testid="modal-submit">${plainToHtml(top.submit.text)}</button>` : '';
  root.innerHTML = `<form class="modal" data-testid="modal" data-view-id="${escapeHtml(top.id)}" role="dialog" aria-modal="true">
    <div class="modal-header"><h2>${plainToHtml(top.title?.text ?? '')}</h2><button type="button" class="icon-button" data-close-modal aria-label="Close">✕</button></div>
    <div class="modal-body">${blocksHtml(top.blocks, ctx)}</div>
    <div class="modal-footer"><button type="button" class="bk-button" data-close-modal data-testid="modal-close">${plainToHtml(top.close?.text ?? 'Cancel')}</button>${submit}</div>
  </form>`;
  applyColours(root);
  root.hidden = false;
}

async function refresh() {
  if (!ui.workspace) return;
  // The Home tab has no composer; channels do.
  $('composer').hidden = ui.mode === 'home';
  $('home').hidden = ui.mode !== 'home';
  $('messages').hidden = ui.mode === 'home';
  try {
    if (ui.mode === 'home') await renderHome();
    else await renderChannel();
    await renderThread();
    await renderModals();
    renderSidebar();
  } catch (err) {
    toast(`Could not refresh: ${err.message}`, true);
  }
}

function scheduleRefresh() {
  clearTimeout(ui.refreshTimer);
  ui.refreshTimer = setTimeout(refresh, 60);
}

function renderSidebar() {
  const list = $('channel-list');
  const current = ui.workspace.channels.find((c) => c.id === ui.channel);
  if (ui.mode === 'channel' && current?.latest_ts) ui.seen[current.id] = current.latest_ts;
  patchChildren(list, ui.workspace.channels.map((c) => {
    // First load: everything already there counts as seen; later posts make the channel unread.
    if (!(c.id in ui.seen)) ui.seen[c.id] = c.latest_ts ?? '';
    const unread = c.latest_ts && c.latest_ts > ui.seen[c.id] ? ' unread' : '';
    const active = ui.mode === 'channel' && c.id === ui.channel ? ' active' : '';
    return { key: c.id, html: `<li><button type="button" class="nav-item${active}${unread}" data-channel-id="${escapeHtml(c.id)}" data-testid="channel-${escapeHtml(c.name)}"># ${escapeHtml(c.name)}</button></li>` };
  }));
  $('home-link').classList.toggle('active', ui.mode === 'home');
}

async function reloadWorkspace() {
  ui.workspace = await api('state');
  $('workspace-name').textContent = ui.workspace.team.domain;
  $('app-name').textContent = ui.workspace.bot.name;
  $('command-box').placeholder = `Type ${ui.workspace.command} help, or a message`;
}

function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const channel = params.get('channel');
  if (channel && ui.workspace.channels.some((c) => c.id === channel || c.name === channel)) {
    ui.channel = ui.workspace.channels.find((c) => c.id === channel || c.name === channel).id;
    ui.mode = 'channel';
  }
  ui.highlight = params.get('ts') || null;
}

// ── actions ────────────────────────────────────────────────────────────────────────────────────
async function sendAction(el, selected) {
  const viewEl = el.closest('[data-view-id]');
  const messageEl = el.closest('[data-testid="message"]');
  const body = { user: ui.user, action_id: el.dataset.actionId };
  if (el.dataset.blockId) body.block_id = el.dataset.blockId;
  if (selected !== undefined) body.selected = selected;
  if (messageEl) Object.assign(body, { channel: messageEl.dataset.channel, ts: messageEl.dataset.ts, ephemeral: messageEl.dataset.ephemeral === 'true' });
  else if (viewEl) body.view_id = viewEl.dataset.viewId;
  else return;
  el.disabled = true;
  try {
    reportOutcome(await api('action', body), 'The action');
  } finally {
    el.disabled = false;
    scheduleRefresh();
  }
}

function collectValues(form) {
  const values = {};
  for (const el of form.querySelectorAll('[data-input-block]')) {
    const block = el.dataset.inputBlock;
    const action = el.dataset.inputAction;
    let value;
    if (el.classList.contains('bk-choices')) {
      const checked = [...el.querySelectorAll('input:checked')].map((i) => i.value);
      value = el.dataset.inputType === 'checkboxes' ? checked : checked[0];
    } else if (el.multiple) {
      value = [...el.selectedOptions].map((o) => o.value).filter(Boolean);
    } else {
      value = el.value;
    }
    if (value === undefined || value === '') continue;
    (values[block] ??= {})[action] = value;
  }
  return values;
}

function wire() {
  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    const channelButton = target.closest('[data-channel-id]');
    if (channelButton) {
      ui.mode = 'channel';
      ui.channel = channelButton.dataset.channelId;
      ui.thread = null;
      ui.highlight = null;
      renderChannel.scrolled = false;
      $('home').hidden = true;
      $('messages').hidden = false;
      history.replaceState(null, '', `#channel=${encodeURIComponent(ui.channel)}`);
      return void refresh();
    }
    const threadButton = target.closest('[data-open-thread]');
    if (threadButton) {
      ui.thread = threadButton.dataset.openThread;
      return void renderThread();
    }
    if (target.closest('[data-close-modal]')) {
      const form = target.closest('[data-view-id]');
      return void api('view-close', { user: ui.user, view_id: form.dataset.viewId }).then(scheduleRefresh);
    }
    const button = target.closest('button[data-action-id], a[data-action-id]');
    if (button) {
      // URL buttons open their link (default behaviour) and still notify the app, as in Slack.
      sendAction(button, undefined);
    }
  });

  document.addEventListener('change', (event) => {
    const el = event.target;
    if (el instanceof HTMLSelectElement && el.dataset.actionId && el.value) sendAction(el, el.value);
    if (el instanceof HTMLInputElement && el.type === 'date' && el.dataset.actionId) sendAction(el, el.value);
  });

  document.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains('modal')) return;
    event.preventDefault();
    const result = await api('view-submission', { user: ui.user, view_id: form.dataset.viewId, values: collectValues(form) });
    reportOutcome(result, 'Submitting');
    $('modal-root').dataset.hash = '';
    scheduleRefresh();
  });

  $('home-link').addEventListener('click', async () => {
    ui.mode = 'home';
    ui.thread = null;
    $('messages').hidden = true;
    $('home').hidden = false;
    $('composer').hidden = true;
    $('thread-panel').hidden = true;
    renderSidebar();
    await renderHome();
    reportOutcome(await api('home-opened', { user: ui.user }), 'Opening the Home tab');
    scheduleRefresh();
  });

  $('thread-close').addEventListener('click', () => {
    ui.thread = null;
    $('thread-panel').hidden = true;
  });

  $('user-picker').addEventListener('change', (event) => {
    ui.user = event.target.value;
    localStorage.setItem('local-slack-user', ui.user);
    $('modal-root').dataset.hash = '';
    refresh();
  });

  $('composer').addEventListener('submit', async (event) => {
    event.preventDefault();
    const box = $('command-box');
    const text = box.value.trim();
    if (!text || ui.mode !== 'channel') {
      if (ui.mode !== 'channel') toast('Pick a channel first');
      return;
    }
    box.value = '';
    if (text.startsWith('/')) {
      const command = text.split(/\s+/)[0];
      const args = text.slice(command.length).trim();
      reportOutcome(await api('command', { user: ui.user, channel: ui.channel, command, text: args }), command);
    } else {
      reportOutcome(await api('message', { user: ui.user, channel: ui.channel, text }), 'Posting');
    }
    renderChannel.scrolled = false;
    scheduleRefresh();
  });

  $('file-input').addEventListener('change', async (event) => {
    const input = event.target;
    const file = input.files?.[0];
    input.value = '';
    if (!file || ui.mode !== 'channel') return;
    if (file.size > 10 * 1024 * 1024) return toast(`${file.name} is larger than 10 MiB`, true);
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    const box = $('command-box');
    const comment = box.value.startsWith('/') ? '' : box.value.trim();
    if (comment) box.value = '';
    const result = await api('file', { user: ui.user, channel: ui.channel, name: file.name, content_base64: btoa(binary), ...(comment ? { comment } : {}) });
    if (result.ok && result.error) toast(`Shared ${file.name}, but the app did not take the event: ${result.error}`, true);
    else if (!result.ok) reportOutcome(result, 'Sharing the file');
    else toast(`Shared ${file.name}`);
    scheduleRefresh();
  });

  $('thread-composer').addEventListener('submit', async (event) => {
    event.preventDefault();
    const box = $('thread-box');
    const text = box.value.trim();
    if (!text || !ui.thread) return;
    box.value = '';
    reportOutcome(await api('message', { user: ui.user, channel: ui.channel, text, thread_ts: ui.thread }), 'Replying');
    scheduleRefresh();
  });

  window.addEventListener('hashchange', () => {
    readHash();
    refresh();
  });
}

function connect() {
  const status = $('connection');
  const source = new EventSource('/admin/events');
  source.addEventListener('hello', () => {
    status.textContent = 'live';
    status.className = 'connection live';
  });
  source.addEventListener('change', (event) => {
    const change = JSON.parse(event.data);
    // New messages change the sidebar counts: refetch the workspace with the view.
    if (change.kind === 'message' || change.kind === 'workspace') reloadWorkspace().then(scheduleRefresh);
    else scheduleRefresh();
  });
  source.onerror = () => {
    status.textContent = 'reconnecting…';
    status.className = 'connection down';
  };
  // A slow poll as well, in case a proxy eats the event stream.
  setInterval(async () => {
    await reloadWorkspace();
    scheduleRefresh();
  }, 15_000);
}

async function main() {
  await reloadWorkspace();
  const picker = $('user-picker');
  picker.innerHTML = ui.workspace.users.map((u) => `<option value="${escapeHtml(u.id)}">${escapeHtml(u.real_name)} (@${escapeHtml(u.name)})</option>`).join('');
  const remembered = localStorage.getItem('local-slack-user');
  ui.user = ui.workspace.users.some((u) => u.id === remembered) ? remembered : ui.workspace.default_user;
  picker.value = ui.user;
  ui.channel = ui.workspace.channels[0]?.id ?? null;
  readHash();
  wire();
  connect();
  await refresh();
}

main().catch((err) => toast(`The chat view could not start: ${err.message}`, true));
