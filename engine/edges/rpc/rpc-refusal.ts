// Answers an RPC with an error before Connect sees it — before its body is
// read or decompressed — in the wire shape of the protocol the client speaks:
// gRPC and gRPC-Web carry the status in a Trailers-Only response (one HEADERS
// frame that ends the stream), Connect streaming in an end-of-stream message,
// Connect unary as an HTTP status with a JSON error body. A body the client is
// still sending is then stopped with RST_STREAM(NO_ERROR) (early-answer-reset.ts).
//
// The answer is written on the raw HTTP/2 stream, not through
// Http2ServerResponse: its writeHead() sends the headers at once without
// END_STREAM and its end() follows with an empty DATA frame, so a gRPC status
// arrives as leading metadata with no trailers after it — grpc-js then fails
// the call with 13 INTERNAL ("Received RST_STREAM with code 0"), grpc-go with
// "server closed the stream without sending trailers".
import type { Http2ServerRequest } from 'node:http2';
import { resetIfClientStillSending } from './early-answer-reset.ts';

export type RefusalCode = 'unauthenticated' | 'permission_denied' | 'unavailable';

const GRPC_STATUS: Record<RefusalCode, number> = { unauthenticated: 16, permission_denied: 7, unavailable: 14 };
const HTTP_STATUS: Record<RefusalCode, number> = { unauthenticated: 401, permission_denied: 403, unavailable: 503 };

export function refuseRpc(req: Http2ServerRequest, code: RefusalCode, message: string): void {
  const stream = req.stream;
  // The client may have gone while the gate looked its token up: nobody is left to answer.
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  const contentType = String(req.headers['content-type'] ?? '');
  if (contentType.startsWith('application/grpc')) {
    stream.respond(
      {
        ':status': 200,
        'content-type': contentType.split(';')[0]!,
        'grpc-status': String(GRPC_STATUS[code]),
        'grpc-message': grpcMessage(message),
      },
      { endStream: true },
    );
  } else if (contentType.startsWith('application/connect+')) {
    const json = Buffer.from(JSON.stringify({ error: { code, message } }), 'utf8');
    const envelope = Buffer.alloc(5);
    envelope.writeUInt8(0b10, 0); // end-of-stream flag
    envelope.writeUInt32BE(json.length, 1);
    stream.respond({ ':status': 200, 'content-type': contentType.split(';')[0]! });
    stream.end(Buffer.concat([envelope, json]));
  } else {
    stream.respond({ ':status': HTTP_STATUS[code], 'content-type': 'application/json' });
    stream.end(JSON.stringify({ code, message }));
  }
  resetIfClientStillSending(stream);
}

/**
 * grpc-message as the gRPC protocol spells it: percent-encoding only for '%' and bytes outside
 * printable ASCII. encodeURIComponent would also escape ':', ';', ',' and '/', which grpc-js
 * (it decodes with decodeURI) would then show verbatim in the message the caller reads.
 */
function grpcMessage(message: string): string {
  let encoded = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    encoded +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}
