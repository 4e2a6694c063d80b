// Small typed errors for what the facade itself refuses (before or instead of
// calling the engine). error-mapping.ts turns them into responses; their
// messages are written for the caller and never quote a secret, key or body.

export class FacadeHttpError extends Error {
  readonly status: number;
  /** The OData error code, e.g. `BadRequest`. */
  readonly code: string;
  /** Response headers that belong to this error (e.g. `Allow`). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

export class BadRequestError extends FacadeHttpError {
  constructor(message: string) {
    super(400, 'BadRequest', message);
  }
}

/** Missing or unusable caller credentials: answered exactly like a wrong secret. */
export class UnauthorizedError extends FacadeHttpError {
  constructor() {
    super(401, 'Unauthorized', 'Unauthorized');
  }
}

/** Nothing at this address: no such service instance, path or provider route. */
export class RouteNotFoundError extends FacadeHttpError {
  constructor(message: string) {
    super(404, 'NotFound', message);
  }
}

export class MethodNotAllowedError extends FacadeHttpError {
  constructor(method: string, allow: string) {
    super(405, 'MethodNotAllowed', `Method ${method} is not allowed here; use ${allow}`, { Allow: allow });
  }
}

export class NotImplementedError extends FacadeHttpError {
  constructor(method: string) {
    super(501, 'NotImplemented', `Method ${method} is not implemented`);
  }
}

export class PayloadTooLargeError extends FacadeHttpError {
  constructor(limitBytes: number) {
    super(413, 'PayloadTooLarge', `The request body exceeds the limit of ${limitBytes} bytes`);
  }
}

export class UnsupportedMediaTypeError extends FacadeHttpError {
  constructor(message: string) {
    super(415, 'UnsupportedMediaType', message);
  }
}

/** A dependency of the facade itself (an identity provider's keys) could not be reached. */
export class ServiceUnavailableError extends FacadeHttpError {
  constructor(message: string) {
    super(503, 'ServiceUnavailable', message);
  }
}
