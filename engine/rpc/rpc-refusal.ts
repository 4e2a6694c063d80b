// Answers an RPC with an error before Connect sees it — before its body is
// read or decompressed — in the wire shape of the protocol the client speaks:
// gRPC and gRPC-Web carry the status in (trailers-only) headers, Connect
// streaming in an end-of-stream message, Connect unary as an HTTP status with
// a JSON error body. Then the stream is reset with NO_ERROR, which tells an
// HTTP/2 client to stop sending the rest of the body.
import { constants, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';

export type RefusalCode = 'unauthenticated' | 'permission_denied' | 'unavailable';

const GRPC_STATUS: Record<RefusalCode, number> = { unauthenticated: 16, permission_denied: 7, unavailable: 14 };
const HTTP_STATUS: Record<RefusalCode, number> = { unauthenticated: 401, permission_denied: 403, unavailable: 503 };

export function refuseRpc(req: Http2ServerRequest, res: Http2ServerResponse, code: RefusalCode, message: string): void {
  const contentType = String(req.headers['content-type'] ?? '');
  res.once('finish', () => {
    if (!req.stream.closed) req.stream.close(constants.NGHTTP2_NO_ERROR);
  });
  if (contentType.startsWith('application/grpc')) {
    res.writeHead(200, { 'content-type': contentType.split(';')[0]!, 'grpc-status': String(GRPC_STATUS[code]), 'grpc-message': encodeURIComponent(message) });
    res.end();
    return;
  }
  if (contentType.startsWith('application/connect+')) {
    const json = Buffer.from(JSON.stringify({ error: { code, message } }), 'utf8');
    const envelope = Buffer.alloc(5);
    envelope.writeUInt8(0b10, 0); // end-of-stream flag
    envelope.writeUInt32BE(json.length, 1);
    res.writeHead(200, { 'content-type': contentType.split(';')[0]! });
    res.end(Buffer.concat([envelope, json]));
    return;
  }
  res.writeHead(HTTP_STATUS[code], { 'content-type': 'application/json' });
  res.end(JSON.stringify({ code, message }));
}
