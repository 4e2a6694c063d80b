// Who is signed in (ConsoleService.GetSession), signing in with an admin token
// and signing out. The session itself is the HttpOnly cookie the engine sets;
// this holds only what the page may know: the person, their roles and the
// CSRF token for the session's calls.
import { createContext, useContext, useEffect, type ReactNode } from 'react';
import { partialMatchKey, useQueryClient } from '@tanstack/react-query';
import { createConnectQueryKey, useMutation, useQuery } from '@connectrpc/connect-query';
import {
  ConsoleRole,
  ConsoleService,
  type ConsolePerson,
  type SignInOptions,
} from '../../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import { onSessionEnded, setCsrfToken } from '../rpc/transport.ts';

export type RoleName = 'viewer' | 'editor' | 'admin';

interface Session {
  person?: ConsolePerson;
  signIn?: SignInOptions;
  loading: boolean;
  signInWithToken(adminToken: string): Promise<void>;
  signOut(): Promise<void>;
}

const SessionContext = createContext<Session | undefined>(undefined);

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const session = useQuery(ConsoleService.method.getSession, {}, { staleTime: Infinity, retry: false });
  const signIn = useMutation(ConsoleService.method.signIn);
  const signOut = useMutation(ConsoleService.method.signOut);
  const sessionKey = createConnectQueryKey({
    schema: ConsoleService.method.getSession,
    input: {},
    cardinality: 'finite',
  });

  if (session.data) setCsrfToken(session.data.csrfToken);
  // The session ended: GetSession is read again (no person now: the sign-in form shows), and nothing
  // else cached stays — it belonged to that session. clear() alone would not do: observers of a
  // removed query are never told, so the page went on showing the person signed in. (The cached
  // key also names the transport, which sessionKey does not: hence the partial match.)
  const forgetSession = async () => {
    queryClient.removeQueries({ predicate: (query) => !partialMatchKey(query.queryKey, sessionKey) });
    await queryClient.resetQueries({ queryKey: sessionKey });
  };
  useEffect(() => onSessionEnded(() => void forgetSession()), [queryClient]);

  const value: Session = {
    person: session.data?.person,
    signIn: session.data?.signIn,
    loading: session.isPending,
    async signInWithToken(adminToken) {
      const answer = await signIn.mutateAsync({ adminToken });
      setCsrfToken(answer.csrfToken);
      queryClient.setQueryData(sessionKey, (old) =>
        old ? { ...old, person: answer.person, csrfToken: answer.csrfToken } : old,
      );
      await queryClient.invalidateQueries({ queryKey: sessionKey });
    },
    async signOut() {
      await signOut.mutateAsync({});
      setCsrfToken('');
      await forgetSession();
    },
  };
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

const RANK: Record<RoleName, number> = { viewer: 1, editor: 2, admin: 3 };
const NAMES: Partial<Record<ConsoleRole, RoleName>> = {
  [ConsoleRole.VIEWER]: 'viewer',
  [ConsoleRole.EDITOR]: 'editor',
  [ConsoleRole.ADMIN]: 'admin',
};

/** Whether the person may do what `needed` may in the company (the engine decides; this only spares a refused click). */
export function mayIn(person: ConsolePerson | undefined, company: string, needed: RoleName): boolean {
  return (person?.roles ?? []).some(
    (grant) =>
      (grant.company === '' || grant.company === company) &&
      RANK[NAMES[grant.role] ?? 'viewer'] >= RANK[needed] &&
      NAMES[grant.role] !== undefined,
  );
}
