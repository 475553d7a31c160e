/**
 * Block Kit validation as the real API does it: every problem becomes a line of
 * `response_metadata.messages`, "[ERROR] <what> [json-pointer:<where>]", so an app developer sees the
 * same explanation here as from Slack. Limits: https://docs.slack.dev/reference/block-kit/blocks
 */
import type { Json } from './types.js';

export const BLOCK_LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  headerText: 150,
  actionsElements: 25,
  contextElements: 10,
  buttonText: 75,
  buttonValue: 2000,
  url: 3000,
  id: 255,
  altText: 2000,
  optionText: 75,
  optionValue: 150,
  selectOptions: 100,
  placeholder: 150,
  viewTitle: 24,
  privateMetadata: 3000,
} as const;

const BLOCK_TYPES = new Set([
  'section',
  'divider',
  'image',
  'actions',
  'context',
  'input',
  'file',
  'header',
  'rich_text',
  'video',
  'markdown',
  'table',
  'call',
]);

const ELEMENT_TYPES = new Set([
  'button',
  'static_select',
  'multi_static_select',
  'external_select',
  'multi_external_select',
  'users_select',
  'multi_users_select',
  'conversations_select',
  'multi_conversations_select',
  'channels_select',
  'multi_channels_select',
  'overflow',
  'datepicker',
  'datetimepicker',
  'timepicker',
  'plain_text_input',
  'number_input',
  'email_text_input',
  'url_text_input',
  'checkboxes',
  'radio_buttons',
  'image',
  'rich_text_input',
  'file_input',
  'workflow_button',
]);

type Surface = 'message' | 'modal' | 'home';

class Problems {
  readonly messages: string[] = [];
  add(what: string, pointer: string): void {
    // Bounded: one bad payload should not produce megabytes of explanation.
    if (this.messages.length < 50) this.messages.push(`[ERROR] ${what} [json-pointer:${pointer}]`);
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkLength(p: Problems, value: unknown, max: number, pointer: string): void {
  if (typeof value === 'string' && value.length > max) p.add(`must be less than ${max + 1} characters`, pointer);
}

function checkTextObject(
  p: Problems,
  value: unknown,
  pointer: string,
  opts: { max: number; plainOnly?: boolean; required?: boolean },
): void {
  if (value === undefined) {
    if (opts.required) p.add('missing required field: text', pointer);
    return;
  }
  if (!isObject(value)) {
    p.add('must be a text object', pointer);
    return;
  }
  if (value.type !== 'plain_text' && value.type !== 'mrkdwn') {
    p.add('must be one of plain_text, mrkdwn', `${pointer}/type`);
  } else if (opts.plainOnly && value.type !== 'plain_text') {
    p.add('must be plain_text', `${pointer}/type`);
  }
  if (typeof value.text !== 'string') p.add('missing required field: text', `${pointer}/text`);
  else if (value.text.length === 0) p.add('must be more than 0 characters', `${pointer}/text`);
  else checkLength(p, value.text, opts.max, `${pointer}/text`);
}

function checkOptions(p: Problems, options: unknown, pointer: string, min: number, max: number): void {
  if (!Array.isArray(options)) {
    p.add('must provide an array', pointer);
    return;
  }
  if (options.length < min) p.add(`must provide at least ${min} items`, pointer);
  if (options.length > max) p.add(`no more than ${max} items allowed`, pointer);
  options.slice(0, max).forEach((option, i) => {
    const at = `${pointer}/${i}`;
    if (!isObject(option)) return p.add('must be an option object', at);
    checkTextObject(p, option.text, `${at}/text`, { max: BLOCK_LIMITS.optionText, required: true });
    if (option.value !== undefined) checkLength(p, option.value, BLOCK_LIMITS.optionValue, `${at}/value`);
  });
}

function checkElement(p: Problems, element: unknown, pointer: string): void {
  if (!isObject(element)) return p.add('must be an element object', pointer);
  const type = element.type;
  if (typeof type !== 'string' || !ELEMENT_TYPES.has(type)) {
    return p.add(`unsupported type: ${String(type)}`, `${pointer}/type`);
  }
  // An id of at most 255 characters is a string; block_id is held to the same in checkBlock.
  if (element.action_id !== undefined && typeof element.action_id !== 'string') p.add('must be a string', `${pointer}/action_id`);
  else checkLength(p, element.action_id, BLOCK_LIMITS.id, `${pointer}/action_id`);
  if (type === 'button') {
    checkTextObject(p, element.text, `${pointer}/text`, { max: BLOCK_LIMITS.buttonText, plainOnly: true, required: true });
    checkLength(p, element.value, BLOCK_LIMITS.buttonValue, `${pointer}/value`);
    checkLength(p, element.url, BLOCK_LIMITS.url, `${pointer}/url`);
    if (element.style !== undefined && element.style !== 'primary' && element.style !== 'danger') {
      p.add('must be one of primary, danger', `${pointer}/style`);
    }
  } else if (type === 'static_select' || type === 'multi_static_select') {
    checkTextObject(p, element.placeholder, `${pointer}/placeholder`, { max: BLOCK_LIMITS.placeholder, plainOnly: true });
    if (element.options === undefined && element.option_groups === undefined) {
      p.add('must provide either options or option_groups', pointer);
    } else if (element.options !== undefined) {
      checkOptions(p, element.options, `${pointer}/options`, 1, BLOCK_LIMITS.selectOptions);
    }
  } else if (type === 'overflow') {
    checkOptions(p, element.options, `${pointer}/options`, 1, 5);
  } else if (type === 'image') {
    if (typeof element.image_url !== 'string' && !isObject(element.slack_file)) {
      p.add('missing required field: image_url', pointer);
    }
    if (typeof element.alt_text !== 'string') p.add('missing required field: alt_text', `${pointer}/alt_text`);
  }
}

function checkBlock(p: Problems, block: unknown, pointer: string, surface: Surface): void {
  if (!isObject(block)) return p.add('must be a block object', pointer);
  const type = block.type;
  if (typeof type !== 'string' || !BLOCK_TYPES.has(type)) {
    return p.add(`unsupported type: ${String(type)}`, `${pointer}/type`);
  }
  if (block.block_id !== undefined) {
    if (typeof block.block_id !== 'string') p.add('must be a string', `${pointer}/block_id`);
    else checkLength(p, block.block_id, BLOCK_LIMITS.id, `${pointer}/block_id`);
  }
  switch (type) {
    case 'section': {
      if (block.text === undefined && block.fields === undefined) {
        p.add('must provide either text or fields', pointer);
      }
      checkTextObject(p, block.text, `${pointer}/text`, { max: BLOCK_LIMITS.sectionText });
      if (block.fields !== undefined) {
        if (!Array.isArray(block.fields)) p.add('must provide an array', `${pointer}/fields`);
        else {
          if (block.fields.length > BLOCK_LIMITS.sectionFields) {
            p.add(`no more than ${BLOCK_LIMITS.sectionFields} items allowed`, `${pointer}/fields`);
          }
          block.fields.forEach((f, i) =>
            checkTextObject(p, f, `${pointer}/fields/${i}`, { max: BLOCK_LIMITS.fieldText, required: true }),
          );
        }
      }
      if (block.accessory !== undefined) checkElement(p, block.accessory, `${pointer}/accessory`);
      break;
    }
    case 'header':
      checkTextObject(p, block.text, `${pointer}/text`, { max: BLOCK_LIMITS.headerText, plainOnly: true, required: true });
      break;
    case 'actions': {
      const elements = block.elements;
      if (!Array.isArray(elements) || elements.length === 0) {
        p.add('must provide at least 1 items', `${pointer}/elements`);
        break;
      }
      if (elements.length > BLOCK_LIMITS.actionsElements) {
        p.add(`no more than ${BLOCK_LIMITS.actionsElements} items allowed`, `${pointer}/elements`);
      }
      elements.forEach((e, i) => checkElement(p, e, `${pointer}/elements/${i}`));
      break;
    }
    case 'context': {
      const elements = block.elements;
      if (!Array.isArray(elements) || elements.length === 0) {
        p.add('must provide at least 1 items', `${pointer}/elements`);
        break;
      }
      if (elements.length > BLOCK_LIMITS.contextElements) {
        p.add(`no more than ${BLOCK_LIMITS.contextElements} items allowed`, `${pointer}/elements`);
      }
      elements.forEach((e, i) => {
        if (isObject(e) && e.type === 'image') checkElement(p, e, `${pointer}/elements/${i}`);
        else checkTextObject(p, e, `${pointer}/elements/${i}`, { max: BLOCK_LIMITS.sectionText, required: true });
      });
      break;
    }
    case 'image':
      if (typeof block.image_url !== 'string' && !isObject(block.slack_file)) {
        p.add('missing required field: image_url', pointer);
      }
      checkLength(p, block.image_url, BLOCK_LIMITS.url, `${pointer}/image_url`);
      if (typeof block.alt_text !== 'string') p.add('missing required field: alt_text', `${pointer}/alt_text`);
      else checkLength(p, block.alt_text, BLOCK_LIMITS.altText, `${pointer}/alt_text`);
      if (block.title !== undefined) {
        checkTextObject(p, block.title, `${pointer}/title`, { max: BLOCK_LIMITS.altText, plainOnly: true });
      }
      break;
    case 'input':
      checkTextObject(p, block.label, `${pointer}/label`, { max: BLOCK_LIMITS.altText, plainOnly: true, required: true });
      if (block.element === undefined) p.add('missing required field: element', `${pointer}/element`);
      else checkElement(p, block.element, `${pointer}/element`);
      if (surface === 'home' && block.dispatch_action !== true) {
        // Home tabs accept input blocks only as dispatch inputs.
        p.add('input blocks in the Home tab need dispatch_action', pointer);
      }
      break;
    default:
      break;
  }
}

/**
 * Validates a `blocks` array for a surface. Returns the `response_metadata.messages` lines; empty
 * when the blocks are acceptable. `pointerBase` is where the array sits in the request.
 */
export function validateBlocks(blocks: unknown, surface: Surface, pointerBase = '/blocks'): string[] {
  const p = new Problems();
  if (!Array.isArray(blocks)) {
    p.add('must provide an array', pointerBase);
    return p.messages;
  }
  const max = surface === 'message' ? BLOCK_LIMITS.messageBlocks : BLOCK_LIMITS.viewBlocks;
  if (blocks.length > max) p.add(`no more than ${max} items allowed`, pointerBase);
  const seen = new Set<string>();
  blocks.forEach((block, i) => {
    checkBlock(p, block, `${pointerBase}/${i}`, surface);
    const id = isObject(block) ? block.block_id : undefined;
    if (typeof id === 'string') {
      if (seen.has(id)) p.add(`duplicate block_id: ${id}`, `${pointerBase}/${i}/block_id`);
      seen.add(id);
    }
  });
  return p.messages;
}

/** Validates a view object (views.open / update / push / publish). Block problems included. */
export function validateView(view: unknown, expected: 'modal' | 'home'): string[] {
  const p = new Problems();
  if (!isObject(view)) {
    p.add('must provide an object', '/view');
    return p.messages;
  }
  if (view.type !== expected) {
    p.add(`must be ${expected}`, '/view/type');
    return p.messages;
  }
  if (expected === 'modal') {
    checkTextObject(p, view.title, '/view/title', { max: BLOCK_LIMITS.viewTitle, plainOnly: true, required: true });
    if (view.submit !== undefined) {
      checkTextObject(p, view.submit, '/view/submit', { max: BLOCK_LIMITS.viewTitle, plainOnly: true });
    }
    if (view.close !== undefined) {
      checkTextObject(p, view.close, '/view/close', { max: BLOCK_LIMITS.viewTitle, plainOnly: true });
    }
    const hasInput = Array.isArray(view.blocks) && view.blocks.some((b) => isObject(b) && b.type === 'input');
    if (hasInput && view.submit === undefined) p.add('submit is required when blocks contain input', '/view/submit');
  }
  checkLength(p, view.private_metadata, BLOCK_LIMITS.privateMetadata, '/view/private_metadata');
  checkLength(p, view.callback_id, BLOCK_LIMITS.id, '/view/callback_id');
  checkLength(p, view.external_id, BLOCK_LIMITS.id, '/view/external_id');
  return [...p.messages, ...validateBlocks(view.blocks, expected, '/view/blocks')];
}

/** Legacy attachments: each may carry blocks of its own; fields and text are free-form. */
export function validateAttachments(attachments: unknown): string[] {
  const p = new Problems();
  if (!Array.isArray(attachments)) {
    p.add('must provide an array', '/attachments');
    return p.messages;
  }
  if (attachments.length > 100) p.add('no more than 100 items allowed', '/attachments');
  const out = [...p.messages];
  attachments.forEach((a, i) => {
    if (!isObject(a)) out.push(`[ERROR] must be an attachment object [json-pointer:/attachments/${i}]`);
    else if (a.blocks !== undefined) out.push(...validateBlocks(a.blocks, 'message', `/attachments/${i}/blocks`));
  });
  return out;
}
