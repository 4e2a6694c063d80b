// A RecordService client with a records account for all companies, standing in
// for the systems that own the records a flow reads (e.g. the ERP's invoices).
import { createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { RecordService } from '../../proto/gen/flowhook/engine/v1/record_service_pb.js';
import type { TestStack } from './stack.ts';

export function recordClient(stack: TestStack): Client<typeof RecordService> {
  return createClient(
    RecordService,
    createConnectTransport({
      baseUrl: stack.engineUrl,
      httpVersion: '2',
      ...stack.recordsTransport,
      interceptors: [
        (next) => (request) => {
          request.header.set('authorization', `Bearer ${stack.tokens.records}`);
          return next(request);
        },
      ],
    }),
  );
}
