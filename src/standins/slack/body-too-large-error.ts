/** A request body over the route's limit; answered with a clear error, never read further. */
export class BodyTooLargeError extends Error {
  readonly code = 'streamdoctor_local_slack_body_too_large';
  constructor(message: string) {
    super(message);
    this.name = 'BodyTooLargeError';
  }
}
