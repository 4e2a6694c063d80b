// Reads a provider's request body as bytes, exactly as sent and never parsed:
// the signature is computed over these bytes, so nothing may be decoded,
// normalised or re-encoded on the way. Bounded by FLOWHOOK_MAX_BODY_BYTES; a
// declared length beyond it is refused before a byte is read.
import type { IncomingMessage } from 'node:http';
import type { FacadeMiddleware } from './facade-context.ts';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from './http-errors.ts';

export function rawBody(maxBodyBytes: number): FacadeMiddleware {
  return async function readRawBody(ctx, next) {
    // A compressed body is not the bytes the provider signed; providers send none.
    const encoding = ctx.get('content-encoding').trim().toLowerCase();
    if (encoding !== '' && encoding !== 'identity')
      throw new UnsupportedMediaTypeError(
        'Content-Encoding is not supported on this route; send the body uncompressed',
      );
    const declared = Number(ctx.get('content-length') || '0');
    if (Number.isFinite(declared) && declared > maxBodyBytes) throw new PayloadTooLargeError(maxBodyBytes);
    ctx.state.rawBody = await readLimited(ctx.req, maxBodyBytes);
    await next();
  };
}

/**
 * Collects the stream up to `limit` bytes. Past it, reading stops (the stream
 * is paused, not destroyed, so the 413 still reaches the caller) and the rest
 * is never buffered.
 */
function readLimited(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        request.pause();
        reject(new PayloadTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
  });
}
