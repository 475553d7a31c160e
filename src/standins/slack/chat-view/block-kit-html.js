// Block Kit → safe HTML for the chat view (and its tests in Node). Every string from a message goes
// through escapeHtml / mrkdwnToHtml; interactive elements carry data-* attributes the page uses to
// send block_actions, and data-testid attributes for browser tests.
import { escapeHtml, isSafeHref, mrkdwnToHtml, plainToHtml, textObjectToHtml } from './mrkdwn-html.js';

const attr = escapeHtml;

function imageSrc(element) {
  if (typeof element.image_url === 'string' && isSafeHref(element.image_url)) return element.image_url;
  const file = element.slack_file;
  if (file && typeof file.id === 'string') return `/admin/files/${encodeURIComponent(file.id)}`;
  if (file && typeof file.url === 'string' && isSafeHref(file.url)) return file.url;
  return null;
}

function optionHtml(option, selectedValue) {
  const value = String(option?.value ?? '');
  const selected = selectedValue !== undefined && value === selectedValue ? ' selected' : '';
  return `<option value="${attr(value)}"${selected}>${escapeHtml(option?.text?.text ?? value)}</option>`;
}

function selectOptions(element, selectedValue) {
  if (Array.isArray(element.option_groups)) {
    return element.option_groups
      .map((g) => `<optgroup label="${attr(g?.label?.text ?? '')}">${(g.options ?? []).map((o) => optionHtml(o, selectedValue)).join('')}</optgroup>`)
      .join('');
  }
  return (element.options ?? []).map((o) => optionHtml(o, selectedValue)).join('');
}

function ids(element, blockId) {
  return `data-action-id="${attr(element.action_id ?? '')}" data-block-id="${attr(blockId ?? '')}"`;
}

/** One interactive or image element (actions, section accessory, context). */
export function elementHtml(element, blockId, ctx = {}) {
  if (!element || typeof element !== 'object') return '';
  const actionId = String(element.action_id ?? '');
  switch (element.type) {
    case 'button': {
      const style = element.style === 'primary' || element.style === 'danger' ? ` ${element.style}` : '';
      const label = plainToHtml(element.text?.text ?? '', element.text?.emoji !== false);
      if (typeof element.url === 'string' && isSafeHref(element.url)) {
        return `<a class="bk-button${style}" role="button" href="${attr(element.url)}" target="_blank" rel="noopener noreferrer" ${ids(element, blockId)} data-testid="button-${attr(actionId)}">${label}<span class="external" aria-hidden="true">↗</span></a>`;
      }
      return `<button type="button" class="bk-button${style}" ${ids(element, blockId)} data-testid="button-${attr(actionId)}">${label}</button>`;
    }
    case 'static_select':
    case 'overflow': {
      const placeholder = element.type === 'overflow' ? '⋯' : element.placeholder?.text ?? 'Select an item';
      const initial = element.initial_option?.value;
      return `<select class="bk-select${element.type === 'overflow' ? ' overflow' : ''}" ${ids(element, blockId)} data-testid="select-${attr(actionId)}" aria-label="${attr(placeholder)}"><option value="" disabled${initial === undefined ? ' selected' : ''}>${escapeHtml(placeholder)}</option>${selectOptions(element, initial)}</select>`;
    }
    case 'users_select':
    case 'conversations_select':
    case 'channels_select': {
      const list = element.type === 'users_select' ? ctx.userList ?? [] : ctx.channelList ?? [];
      const placeholder = element.placeholder?.text ?? 'Select';
      return `<select class="bk-select" ${ids(element, blockId)} data-testid="select-${attr(actionId)}"><option value="" disabled selected>${escapeHtml(placeholder)}</option>${list.map((i) => `<option value="${attr(i.id)}">${escapeHtml(i.name)}</option>`).join('')}</select>`;
    }
    case 'image': {
      const src = imageSrc(element);
      return src ? `<img class="bk-image-element" src="${attr(src)}" alt="${attr(element.alt_text ?? '')}">` : '';
    }
    case 'datepicker':
      return `<input type="date" class="bk-input" ${ids(element, blockId)} value="${attr(element.initial_date ?? '')}">`;
    default:
      return `<span class="bk-unsupported">[${escapeHtml(element.type ?? 'element')}]</span>`;
  }
}

function richTextElements(elements, ctx) {
  return (elements ?? [])
    .map((el) => {
      if (!el || typeof el !== 'object') return '';
      let html;
      if (el.type === 'text') html = escapeHtml(el.text ?? '').replace(/\n/g, '<br>');
      else if (el.type === 'link' && isSafeHref(el.url)) html = `<a href="${attr(el.url)}" target="_blank" rel="noopener noreferrer">${escapeHtml(el.text ?? el.url)}</a>`;
      else if (el.type === 'user') html = `<span class="mention">@${escapeHtml(ctx.users?.[el.user_id] ?? el.user_id)}</span>`;
      else if (el.type === 'channel') html = `<span class="mention">#${escapeHtml(ctx.channels?.[el.channel_id] ?? el.channel_id)}</span>`;
      else if (el.type === 'emoji') html = el.unicode ? escapeHtml(String.fromCodePoint(...String(el.unicode).split('-').map((h) => parseInt(h, 16)).filter(Number.isFinite))) : `:${escapeHtml(el.name)}:`;
      else html = escapeHtml(el.text ?? '');
      const s = el.style ?? {};
      if (s.code) html = `<code>${html}</code>`;
      if (s.bold) html = `<b>${html}</b>`;
      if (s.italic) html = `<i>${html}</i>`;
      if (s.strike) html = `<s>${html}</s>`;
      return html;
    })
    .join('');
}

function richTextHtml(block, ctx) {
  return (block.elements ?? [])
    .map((part) => {
      if (part?.type === 'rich_text_section') return `<div>${richTextElements(part.elements, ctx)}</div>`;
      if (part?.type === 'rich_text_preformatted') return `<pre>${richTextElements(part.elements, ctx)}</pre>`;
      if (part?.type === 'rich_text_quote') return `<blockquote>${richTextElements(part.elements, ctx)}</blockquote>`;
      if (part?.type === 'rich_text_list') {
        const tag = part.style === 'ordered' ? 'ol' : 'ul';
        return `<${tag}>${(part.elements ?? []).map((item) => `<li>${richTextElements(item?.elements, ctx)}</li>`).join('')}</${tag}>`;
      }
      return '';
    })
    .join('');
}

function inputHtml(block, ctx, errors) {
  const element = block.element ?? {};
  const blockId = String(block.block_id ?? '');
  const actionId = String(element.action_id ?? '');
  const name = `data-input-block="${attr(blockId)}" data-input-action="${attr(actionId)}" data-input-type="${attr(element.type ?? '')}"`;
  let control;
  switch (element.type) {
    case 'plain_text_input':
      control = element.multiline
        ? `<textarea class="bk-input" ${name} rows="4" placeholder="${attr(element.placeholder?.text ?? '')}">${escapeHtml(element.initial_value ?? '')}</textarea>`
        : `<input class="bk-input" type="text" ${name} placeholder="${attr(element.placeholder?.text ?? '')}" value="${attr(element.initial_value ?? '')}">`;
      break;
    case 'number_input':
      control = `<input class="bk-input" type="number" ${name} value="${attr(element.initial_value ?? '')}">`;
      break;
    case 'datepicker':
      control = `<input class="bk-input" type="date" ${name} value="${attr(element.initial_date ?? '')}">`;
      break;
    case 'static_select':
    case 'multi_static_select':
      control = `<select class="bk-select" ${name}${element.type === 'multi_static_select' ? ' multiple' : ''}><option value="">${escapeHtml(element.placeholder?.text ?? 'Select')}</option>${selectOptions(element, element.initial_option?.value)}</select>`;
      break;
    case 'users_select':
      control = `<select class="bk-select" ${name}><option value="">${escapeHtml(element.placeholder?.text ?? 'Select a person')}</option>${(ctx.userList ?? []).map((u) => `<option value="${attr(u.id)}">${escapeHtml(u.name)}</option>`).join('')}</select>`;
      break;
    case 'checkboxes':
    case 'radio_buttons': {
      const kind = element.type === 'checkboxes' ? 'checkbox' : 'radio';
      control = `<div class="bk-choices" ${name}>${(element.options ?? [])
        .map((o, i) => `<label><input type="${kind}" name="${attr(blockId)}-${attr(actionId)}" value="${attr(o?.value ?? '')}"${i < 0 ? '' : ''}> ${textObjectToHtml(o?.text, ctx)}</label>`)
        .join('')}</div>`;
      break;
    }
    default:
      control = `<span class="bk-unsupported">[${escapeHtml(element.type ?? 'input')}]</span>`;
  }
  const hint = block.hint ? `<div class="bk-hint">${textObjectToHtml(block.hint, ctx)}</div>` : '';
  const error = errors?.[blockId] ? `<div class="bk-error" role="alert">${escapeHtml(errors[blockId])}</div>` : '';
  const optional = block.optional ? ' <span class="bk-optional">(optional)</span>' : '';
  return `<div class="bk-input-block"><label class="bk-label">${plainToHtml(block.label?.text ?? '')}${optional}</label>${control}${hint}${error}</div>`;
}

function tableHtml(block, ctx) {
  const cell = (c) => (c?.type === 'rich_text' ? richTextHtml(c, ctx) : escapeHtml(c?.text ?? ''));
  const rows = (block.rows ?? []).map((row, i) => {
    const tag = i === 0 ? 'th' : 'td';
    return `<tr>${(row ?? []).map((c) => `<${tag}>${cell(c)}</${tag}>`).join('')}</tr>`;
  });
  return `<table class="bk-table">${rows.join('')}</table>`;
}

/** One block → HTML. `ctx.errors` holds a modal's validation errors by block_id. */
export function blockHtml(block, ctx = {}) {
  if (!block || typeof block !== 'object') return '';
  const blockId = block.block_id;
  switch (block.type) {
    case 'header':
      return `<div class="bk-header">${plainToHtml(block.text?.text ?? '')}</div>`;
    case 'section': {
      const text = block.text ? `<div class="bk-text">${textObjectToHtml(block.text, ctx)}</div>` : '';
      const fields = Array.isArray(block.fields)
        ? `<div class="bk-fields">${block.fields.map((f) => `<div class="bk-field">${textObjectToHtml(f, ctx)}</div>`).join('')}</div>`
        : '';
      const accessory = block.accessory ? `<div class="bk-accessory">${elementHtml(block.accessory, blockId, ctx)}</div>` : '';
      return `<div class="bk-section"><div class="bk-section-body">${text}${fields}</div>${accessory}</div>`;
    }
    case 'divider':
      return '<hr class="bk-divider">';
    case 'context':
      return `<div class="bk-context">${(block.elements ?? [])
        .map((e) => (e?.type === 'image' ? elementHtml(e, blockId, ctx) : `<span>${textObjectToHtml(e, ctx)}</span>`))
        .join('')}</div>`;
    case 'image': {
      const src = imageSrc(block);
      const title = block.title ? `<figcaption>${plainToHtml(block.title.text ?? '')}</figcaption>` : '';
      return src ? `<figure class="bk-image">${title}<img src="${attr(src)}" alt="${attr(block.alt_text ?? '')}" loading="lazy"></figure>` : '';
    }
    case 'actions':
      return `<div class="bk-actions">${(block.elements ?? []).map((e) => elementHtml(e, blockId, ctx)).join('')}</div>`;
    case 'input':
      return inputHtml(block, ctx, ctx.errors);
    case 'rich_text':
      return `<div class="bk-rich-text">${richTextHtml(block, ctx)}</div>`;
    case 'markdown':
      return `<div class="bk-text">${mrkdwnToHtml(String(block.text ?? '').replace(/\*\*(.+?)\*\*/g, '*$1*'), ctx)}</div>`;
    case 'table':
      return tableHtml(block, ctx);
    default:
      return `<div class="bk-unsupported">[${escapeHtml(block.type ?? 'block')} block]</div>`;
  }
}

export function blocksHtml(blocks, ctx = {}) {
  return (Array.isArray(blocks) ? blocks : []).map((b) => blockHtml(b, ctx)).join('');
}

const NAMED_COLORS = { good: 'good', warning: 'warning', danger: 'danger' };

/** Legacy attachments: a colour bar, pretext, title, text, fields, footer, and their own blocks. */
export function attachmentsHtml(attachments, ctx = {}) {
  return (Array.isArray(attachments) ? attachments : [])
    .map((a) => {
      if (!a || typeof a !== 'object') return '';
      const color = typeof a.color === 'string' ? a.color.trim() : '';
      const named = NAMED_COLORS[color];
      // Hex colours are applied by the page through the CSSOM (no inline styles under the CSP).
      const colorAttr = named ? ` data-color-name="${named}"` : /^#?[0-9a-f]{3,8}$/i.test(color) ? ` data-color="${attr(color.startsWith('#') ? color : `#${color}`)}"` : '';
      const md = (key) => Array.isArray(a.mrkdwn_in) && a.mrkdwn_in.includes(key);
      const txt = (key) => (md(key) || key === 'text' ? mrkdwnToHtml(a[key], ctx) : plainToHtml(a[key]));
      const parts = [];
      if (a.pretext) parts.push(`<div class="att-pretext">${txt('pretext')}</div>`);
      if (a.title) {
        const title = escapeHtml(a.title);
        parts.push(`<div class="att-title">${isSafeHref(a.title_link) ? `<a href="${attr(a.title_link)}" target="_blank" rel="noopener noreferrer">${title}</a>` : title}</div>`);
      }
      if (a.text) parts.push(`<div class="att-text">${txt('text')}</div>`);
      if (Array.isArray(a.fields) && a.fields.length) {
        parts.push(`<div class="bk-fields">${a.fields.map((f) => `<div class="bk-field${f?.short ? ' short' : ''}"><b>${escapeHtml(f?.title ?? '')}</b><br>${mrkdwnToHtml(f?.value ?? '', ctx)}</div>`).join('')}</div>`);
      }
      if (Array.isArray(a.blocks)) parts.push(blocksHtml(a.blocks, ctx));
      if (a.image_url && isSafeHref(a.image_url)) parts.push(`<img class="att-image" src="${attr(a.image_url)}" alt="">`);
      if (a.footer) parts.push(`<div class="bk-context"><span>${plainToHtml(a.footer)}</span></div>`);
      return `<div class="attachment"${colorAttr}>${parts.join('')}</div>`;
    })
    .join('');
}

/** Files shared with a message: images inline, anything else as a download card. */
export function filesHtml(files) {
  return (Array.isArray(files) ? files : [])
    .map((f) => {
      if (!f || typeof f !== 'object') return '';
      const src = `/admin/files/${encodeURIComponent(f.id ?? '')}`;
      const title = escapeHtml(f.title || f.name || 'file');
      if (typeof f.mimetype === 'string' && /^image\/(png|jpeg|gif|webp)$/.test(f.mimetype)) {
        return `<figure class="file-image" data-testid="file-image"><figcaption>${title}</figcaption><a href="${attr(src)}" target="_blank" rel="noopener"><img src="${attr(src)}" alt="${attr(f.alt_txt ?? f.title ?? '')}" loading="lazy"></a></figure>`;
      }
      return `<a class="file-card" href="${attr(src)}" download="${attr(f.name ?? 'file')}" data-testid="file-card">📄 ${title} <span class="file-size">${escapeHtml(String(f.size ?? ''))} bytes</span></a>`;
    })
    .join('');
}

/** A whole message body: blocks when present (text otherwise), attachments, files. */
export function messageBodyHtml(message, ctx = {}) {
  const hasBlocks = Array.isArray(message?.blocks) && message.blocks.length > 0;
  const body = hasBlocks ? blocksHtml(message.blocks, ctx) : message?.text ? `<div class="bk-text">${mrkdwnToHtml(message.text, ctx)}</div>` : '';
  return `${body}${attachmentsHtml(message?.attachments, ctx)}${filesHtml(message?.files)}`;
}
