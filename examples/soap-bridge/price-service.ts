// A SOAP 1.1 price service on loopback for the soap-bridge example flow
// (examples/flows/soap-bridge.flow.yaml): prices sku "P-1" and answers a
// Fault for anything else. It records the requests it got. The SOAP/REST
// bridge tutorial runs it on the port the example flow names:
//
//   npx node examples/soap-bridge/price-service.ts        # http://127.0.0.1:8089/soap/prices
//
// and the example-flow tests start it on a free port.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SoapPriceServer {
  url: string;
  requests: { headers: IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

/** The port examples/flows/soap-bridge.flow.yaml calls. */
export const EXAMPLE_PORT = 8089;

export async function startSoapPriceServer(port = 0): Promise<SoapPriceServer> {
  const requests: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      requests.push({ headers: req.headers, body });
      const sku = body.match(/<p:Sku>(.*?)<\/p:Sku>/)?.[1];
      const quantity = Number(body.match(/<p:Quantity>(.*?)<\/p:Quantity>/)?.[1]);
      const envelope = (inner: string) =>
        `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>${inner}</soap:Body></soap:Envelope>`;
      if (sku === 'P-1') {
        res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' });
        res.end(
          envelope(
            `<m:GetPriceResponse xmlns:m="urn:prices"><m:Sku>P-1</m:Sku><m:UnitPrice currency="EUR">12.50</m:UnitPrice><m:Total>${(12.5 * quantity).toFixed(2)}</m:Total></m:GetPriceResponse>`,
          ),
        );
      } else {
        res.writeHead(500, { 'content-type': 'text/xml; charset=utf-8' });
        res.end(
          envelope(
            `<soap:Fault><faultcode>soap:Client</faultcode><faultstring>unknown sku ${sku}</faultstring></soap:Fault>`,
          ),
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.main) {
  const service = await startSoapPriceServer(Number(process.argv[2] ?? EXAMPLE_PORT));
  process.stdout.write(`SOAP price service on ${service.url}/soap/prices (sku P-1 has a price; Ctrl-C stops it)\n`);
}
