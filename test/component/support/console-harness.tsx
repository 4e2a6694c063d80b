// The console as a component test renders it: the providers main.tsx gives the
// pages (the query cache, the transport, the session, the router), with an
// engine in memory in place of the network — a Connect router whose services
// implement the methods the test needs — and the router at the test's address.
// The engine keeps every request it is given, so a test asserts what the page
// asked for, as the engine would read it.
import type { ReactElement, ReactNode } from 'react';
import { render } from '@testing-library/react';
import { create, type DescMessage, type DescMethodUnary, type MessageShape } from '@bufbuild/protobuf';
import { createRouterTransport, type ConnectRouter, type Transport } from '@connectrpc/connect';
import { TransportProvider } from '@connectrpc/connect-query';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter, useLocation, type Location } from 'react-router';
import {
  ConsolePersonSchema,
  ConsoleRole,
  ConsoleService,
  SignInMethod,
} from '../../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import { SecretRevealProvider } from '../../../console/src/card/secret-dialog.tsx';
import { SessionProvider, useSession } from '../../../console/src/session/session.tsx';

export const COMPANY = 'Default';

export interface HarnessOptions {
  /** The engine's methods the test uses, besides ConsoleService.GetSession. */
  engine(router: ConnectRouter): void;
  /** The address the page opens at. */
  path?: string;
  /** The signed-in person's role in COMPANY. */
  role?: ConsoleRole;
}

export interface Harness {
  transport: Transport;
  queryClient: QueryClient;
  /** Every request the engine got for `method`, oldest first. */
  requests<I extends DescMessage, O extends DescMessage>(method: DescMethodUnary<I, O>): MessageShape<I>[];
  /** Where the router is now (after the page navigated). */
  location(): Location;
  /** The providers, for renderHook. */
  wrapper({ children }: { children: ReactNode }): ReactElement;
}

export function consoleHarness({ engine, path = '/', role = ConsoleRole.EDITOR }: HarnessOptions): Harness {
  const received: { method: string; message: unknown }[] = [];
  const person = create(ConsolePersonSchema, {
    name: 'ada@example.com',
    via: SignInMethod.OIDC,
    roles: [{ company: COMPANY, role }],
  });
  const transport = createRouterTransport(
    (router) => {
      router.service(ConsoleService, { getSession: () => ({ person, csrfToken: 'csrf-token' }) });
      engine(router);
    },
    {
      transport: {
        interceptors: [
          (next) => (request) => {
            if (!request.stream)
              received.push({ method: `${request.service.typeName}/${request.method.name}`, message: request.message });
            return next(request);
          },
        ],
      },
    },
  );
  // As main.tsx has it, but a refused read is not tried again: a test sees the refusal at once.
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false, staleTime: 5_000 } },
  });
  let current: Location | undefined;
  function LocationProbe() {
    current = useLocation();
    return null;
  }
  const wrapper = ({ children }: { children: ReactNode }) => (
    <TransportProvider transport={transport}>
      <QueryClientProvider client={queryClient}>
        <MemoryRouter initialEntries={[path]}>
          <SessionProvider>
            <SecretRevealProvider>
              <SignedIn>{children}</SignedIn>
              <LocationProbe />
            </SecretRevealProvider>
          </SessionProvider>
        </MemoryRouter>
      </QueryClientProvider>
    </TransportProvider>
  );
  return {
    transport,
    queryClient,
    requests: <I extends DescMessage, O extends DescMessage>(method: DescMethodUnary<I, O>) =>
      received
        .filter((call) => call.method === `${method.parent.typeName}/${method.name}`)
        .map((call) => call.message as MessageShape<I>),
    location: () => current!,
    wrapper,
  };
}

/** Like App: nothing of the page before the session is known (a page would take its person for signed out). */
function SignedIn({ children }: { children: ReactNode }) {
  return useSession().loading ? null : children;
}

/** Renders `ui` inside the console's providers; the test finds what it shows through `screen`. */
export function renderConsole(ui: ReactElement, options: HarnessOptions): Harness {
  const harness = consoleHarness(options);
  render(ui, { wrapper: harness.wrapper });
  return harness;
}
