/** The local Slack stand-in: public API. */
export { LocalSlack, startLocalSlack } from './local-slack.js';
export type { LocalSlackOptions, RateLimitOptions } from './options.js';
export { DEFAULT_BOT, DEFAULT_CHANNELS, DEFAULT_USERS } from './options.js';
export { SlackDelivery, type DeliveryResult, type SendOptions, type SlackDeliveryOptions } from './slack-delivery.js';
export { computeSlackSignature, signSlackRequest, verifySlackSignature } from './signing.js';
export { AppInteractions, type InteractionOutcome } from './app-interactions.js';
export { InteractionError, type InteractionErrorCode } from './interaction-error.js';
export { validateBlocks, validateView, BLOCK_LIMITS } from './block-validation.js';
export { ChannelRateLimiter } from './rate-limiter.js';
export { MinuteRateLimiter } from './minute-rate-limiter.js';
export { EventRedelivery, EVENT_RETRY_DELAYS_MS } from './event-redelivery.js';
export { SlackFaultInjector, type SlackFaultKind, type SlackFaultRule } from './faults.js';
export { slashCommandBody, interactionBody, eventEnvelope } from './payloads.js';
export type * from './types.js';
