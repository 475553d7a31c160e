/** Typed store errors with stable codes. */
import { StreamDoctorError } from '../util/errors.js';

export type StoreErrorCode =
  | 'streamdoctor_store_conflict'
  | 'streamdoctor_store_not_found'
  | 'streamdoctor_store_invalid'
  | 'streamdoctor_store_corrupt';

export class StoreError extends StreamDoctorError {
  declare readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** Another detect run committed this query's state first; the job retries with fresh state. */
export class StateConflictError extends StoreError {
  constructor(queryId: string, expected: number, actual: number) {
    super(
      'streamdoctor_store_conflict',
      `tracker state of query ${queryId} changed concurrently (expected version ${expected}, found ${actual})`,
    );
  }
}
