/** A person's action the stand-in cannot carry out (unknown user, channel, message or option). */
export type InteractionErrorCode =
  | 'streamdoctor_local_slack_unknown_user'
  | 'streamdoctor_local_slack_unknown_channel'
  | 'streamdoctor_local_slack_not_found'
  | 'streamdoctor_local_slack_bad_input'
  | 'streamdoctor_local_slack_unknown_command';

export class InteractionError extends Error {
  constructor(
    readonly code: InteractionErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'InteractionError';
  }
}
