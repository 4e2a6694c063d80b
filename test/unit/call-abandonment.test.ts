// The engine's Temporal call interceptor (engine/infrastructure/temporal/call-abandonment.ts): an
// attempt made after the connection closed — a retry whose backoff timer fired during shutdown —
// ends as CANCELLED (which the SDK does not retry) instead of throwing where no caller can catch it
// (it crashed a test process once: "Channel has been shut down" from a timer).
import test from 'ava';
import { Metadata, status, type Interceptor, type StatusObject } from '@grpc/grpc-js';
import { createCallAbandonment } from '../../engine/infrastructure/temporal/call-abandonment.ts';

test('an attempt on a shut-down channel ends CANCELLED through its listener, and throws nothing', async (t) => {
  const { interceptor } = createCallAbandonment();
  const shutDown: Parameters<Interceptor>[1] = () => {
    throw new Error('Channel has been shut down');
  };
  const call = interceptor({ method_definition: {} } as never, shutDown);
  const received = await new Promise<StatusObject>((resolve) => {
    call.start(new Metadata(), { onReceiveStatus: resolve });
    call.sendMessage({});
    call.halfClose();
  });
  t.is(received.code, status.CANCELLED);
  t.regex(received.details, /Temporal connection is closed.*Channel has been shut down/);
});
