// Guards the pinned Node against a regression that made the facade answer 500
// for calls whose execution had started: in Node 24.20/24.21 an HTTP/2
// response body whose reading begins a tick after the stream closed fails
// with ERR_STREAM_PREMATURE_CLOSE (connect-node reads it that way; seen as
// sporadic "Premature close" 500s under load, more often over TLS). Node
// 24.19 reads such bodies fine — keep the pin there until a fixed release.
import test from 'ava';
import { connect, createServer, type ServerHttp2Stream } from 'node:http2';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

test('a response body read a tick after it arrived is read whole, not a premature close', async (t) => {
  const server = createServer();
  server.on('stream', (stream: ServerHttp2Stream) => {
    stream.resume();
    stream.on('end', () => {
      stream.respond({ ':status': 200, 'content-type': 'application/json' });
      stream.end('{"executionId":"x"}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const session = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  try {
    for (let i = 0; i < 50; i++) {
      const request = session.request({ ':method': 'POST', ':path': '/late-read' });
      request.end('{}');
      await once(request, 'response');
      // The body (and the stream's end) arrive meanwhile; reading starts after them.
      await new Promise((resolve) => setImmediate(resolve));
      let body = '';
      for await (const chunk of request) body += String(chunk);
      t.is(body, '{"executionId":"x"}', `${process.version}, call ${i}`);
    }
  } finally {
    session.close();
    server.close();
  }
});
