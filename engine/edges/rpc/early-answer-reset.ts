// The engine answers some calls before it has read their body: the gate's
// refusals (rpc-refusal.ts) and Connect's own early errors, such as a message
// over readMaxBytes, which Connect finds in the envelope's length prefix.
// HTTP/2 §8.1 lets a server then ask the client to stop sending, once the
// answer is complete, with RST_STREAM(NO_ERROR) — and clients must not discard
// the answer for it. Without the reset, a client that keeps sending waits on
// flow control for ever: grpc-js, having read the status, only half-closes
// its side, so the stream stays open on both ends (and holds up the engine's
// graceful shutdown, which waits for open streams). Until the reset, what
// reaches the engine is bounded by the stream's flow-control window (64 KiB).
import { constants, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Stream } from 'node:http2';

export type NodeHandler = (req: Http2ServerRequest, res: Http2ServerResponse) => void;

/** Resets the stream with NO_ERROR if the client is still sending its body. Call only once the answer is complete. */
export function resetIfClientStillSending(stream: ServerHttp2Stream): void {
  if (stream.closed || stream.destroyed || stream.state.remoteClose === 1) return;
  // With NO_ERROR, Node sends the RST_STREAM after the answer's frames: it waits for the
  // writable side to finish and flushes what is pending before the reset.
  stream.close(constants.NGHTTP2_NO_ERROR);
  // Node releases a stream reset with NO_ERROR only once its readable side has ended, which a body
  // Connect stopped reading never does: the stream, and what got in before the reset, would stay
  // until the connection closes. Release it once the reset is handed over (Node hands it over when
  // the writable side has finished, in a 'finish' listener that runs before this one).
  if (stream.writableFinished) stream.destroy();
  else stream.once('finish', () => stream.destroy());
}

/** Wraps Connect's handler so that every answer it completes stops a body the client is still sending. */
export function resettingAfterAnswer(handler: NodeHandler): NodeHandler {
  return (req, res) => {
    // Connect answers through Http2ServerResponse, which always ends with trailers, sent from the
    // 'wantTrailers' listener it added when the response was made: this one runs after it, with the
    // answer complete. The reset waits for the next turn of the event loop: 'wantTrailers' is
    // emitted from inside nghttp2's send loop, and a reset submitted there went out ahead of the
    // trailers (grpc-js then lost the status).
    req.stream.once('wantTrailers', () => setImmediate(resetIfClientStillSending, req.stream));
    handler(req, res);
  };
}
