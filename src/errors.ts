// The one family of errors a service may throw on purpose. http/problem.ts maps
// each to an RFC 9457 problem response; the MCP server maps them to tool errors.

export interface FieldError {
  field: string
  message: string
}

export abstract class ServiceError extends Error {
  abstract readonly status: number
  readonly errors: FieldError[] | undefined

  constructor(message: string, errors?: FieldError[]) {
    super(message)
    this.name = new.target.name
    this.errors = errors
  }
}

/** 400: the input is wrong; `errors` names the fields. */
export class Invalid extends ServiceError {
  readonly status = 400

  static field(field: string, message: string): Invalid {
    return new Invalid(`${field}: ${message}`, [{ field, message }])
  }
}

/** 401: a token is configured and the bearer value matches nothing. */
export class Unauthorized extends ServiceError {
  readonly status = 401
}

/** 403: the credential is valid but its tier is too low. */
export class Forbidden extends ServiceError {
  readonly status = 403
}

/** 404: the addressed resource does not exist. */
export class NotFound extends ServiceError {
  readonly status = 404
}

/** 409: the request conflicts with the resource's state (e.g. editing a synced row). */
export class Conflict extends ServiceError {
  readonly status = 409
}

/** 503: the feature is switched off or not set up (events disabled, no dashboard token). */
export class Unavailable extends ServiceError {
  readonly status = 503
}

/** 503: the service is closing (SIGTERM); long work in flight stops with this. */
export class ShuttingDown extends Unavailable {
  constructor() {
    super('the service is shutting down')
  }
}

/** 429: a limit on this client was reached (failed authentications, open streams). */
export class TooManyRequests extends ServiceError {
  readonly status = 429

  /** Seconds until trying again can succeed; sent as Retry-After when set. */
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message)
  }
}

/** 422: the input is well-formed but cannot be used (a release whose checksum does not match). */
export class Unprocessable extends ServiceError {
  readonly status = 422
}

/** 502: a server this one depends on failed (a release download). */
export class BadGateway extends ServiceError {
  readonly status = 502
}
