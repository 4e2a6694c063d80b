// Reads the webhook body: JSON only, bounded in size, keeping the exact text
// (`ctx.request.rawBody`) beside the parsed value, because the payload is
// delivered as sent. The body reader's own errors become the facade's typed
// errors here, with messages that never quote the body.
import bodyParser from 'koa-bodyparser';
import type { FacadeMiddleware } from './facade-context.ts';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from './http-errors.ts';

type BodyParserOptions = bodyParser.Options & {
  /**
   * co-body's answer to `__proto__` keys (its default refuses the request).
   * Only `activity` and `secret` are read from the parsed value and the payload
   * travels as text, so such keys are dropped from the parsed copy instead of
   * refusing a payload that merely contains one.
   */
  onProtoPoisoning: 'remove';
};

export function jsonBody(maxBodyBytes: number): FacadeMiddleware {
  const options: BodyParserOptions = {
    enableTypes: ['json'],
    jsonLimit: `${maxBodyBytes}b`,
    strict: true,
    onProtoPoisoning: 'remove',
  };
  const parse = bodyParser(options);
  return async function readJsonBody(ctx, next) {
    // Other JSON-ish types (application/*+json) are refused on purpose: the
    // endpoint's contract is `Content-Type: application/json`.
    const mediaType = (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
    if (mediaType !== 'application/json') {
      throw new UnsupportedMediaTypeError('Content-Type must be application/json');
    }
    try {
      // A no-op `next`: only the parser's own failures are translated here.
      await parse(ctx, async () => {});
    } catch (error) {
      throw bodyError(error, maxBodyBytes);
    }
    await next();
  };
}

function bodyError(error: unknown, maxBodyBytes: number): unknown {
  const { status, type } = (error ?? {}) as { status?: unknown; type?: unknown };
  if (status === 413 || type === 'entity.too.large') return new PayloadTooLargeError(maxBodyBytes);
  if (status === 415) return new UnsupportedMediaTypeError('The request body encoding or charset is not supported');
  if (error instanceof SyntaxError) return new BadRequestError(`Malformed JSON in the request body${position(error)}`);
  if (status === 400) return new BadRequestError('The request body could not be read');
  return error;
}

/** Only the offset from the parser's message: the rest may quote the body (and so the secret). */
function position(error: SyntaxError): string {
  const match = /position (\d+)/.exec(error.message);
  return match ? ` (at position ${match[1]})` : '';
}
