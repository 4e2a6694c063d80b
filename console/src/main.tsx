// The console's entry: one query cache, one transport, the session, the routes.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { TransportProvider } from '@connectrpc/connect-query';
import { createConsoleTransport } from './rpc/transport.ts';
import { SessionProvider } from './session/session.tsx';
import { App } from './app.tsx';
import './styles.css';

const transport = createConsoleTransport(window.location.origin);
const queryClient = new QueryClient({
  defaultOptions: {
    // A refused call (a role missing, a session ended) is not retried; a failed read is, once.
    queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 5_000 },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <TransportProvider transport={transport}>
      <QueryClientProvider client={queryClient}>
        <BrowserRouter>
          <SessionProvider>
            <App />
          </SessionProvider>
        </BrowserRouter>
      </QueryClientProvider>
    </TransportProvider>
  </StrictMode>,
);
