// Reads a response body as a stream and stops at the cap — counted after
// decompression, so a small gzip that inflates to gigabytes costs the worker
// about the cap, never the inflated size. The compressed bytes are capped too.
import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { OutboundFailed, OutboundRefused } from './outbound-errors.ts';

export function readBoundedBody(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const decoder = decoderFor(response.headers['content-encoding']);
    const chunks: Buffer[] = [];
    let raw = 0;
    let decoded = 0;
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      if (error) {
        response.destroy();
        decoder?.destroy();
        reject(error);
      } else {
        resolve(Buffer.concat(chunks, decoded));
      }
    };
    const tooLarge = () =>
      finish(
        new OutboundRefused(
          `the response body is larger than ${maxBytes} bytes${decoder ? ' (after decompression)' : ''} (FLOWHOOK_HTTP_MAX_RESPONSE_BYTES)`,
          'ResponseTooLarge',
        ),
      );
    const take = (chunk: Buffer) => {
      decoded += chunk.length;
      if (decoded > maxBytes) return tooLarge();
      chunks.push(chunk);
    };
    response.on('data', (chunk: Buffer) => {
      raw += chunk.length;
      if (raw > maxBytes) tooLarge();
    });
    response.on('error', (error) =>
      finish(new OutboundFailed(`the response broke off (${(error as NodeJS.ErrnoException).code ?? error.name})`)),
    );
    response.on('aborted', () => finish(new OutboundFailed('the response broke off')));
    if (decoder) {
      decoder.on('data', take);
      decoder.on('error', () =>
        finish(
          new OutboundFailed(
            `the response is not valid ${response.headers['content-encoding']} data`,
            'ResponseUndecodable',
          ),
        ),
      );
      decoder.on('end', () => finish());
      response.pipe(decoder);
    } else {
      response.on('data', take);
      response.on('end', () => finish());
    }
  });
}

/** A decompressor for the encodings we ask for; anything else is kept as sent. */
function decoderFor(encoding: string | undefined): Transform | undefined {
  // Small chunks: a bomb is noticed after at most one chunk past the cap.
  const options = { chunkSize: 64 * 1024 };
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip(options);
    case 'deflate':
      return createInflate(options);
    case 'br':
      return createBrotliDecompress(options);
    default:
      return undefined;
  }
}
