// "The plaintext is shown once in a dialog" (spec §2.3): the secret a flow got
// when it was created or rotated (ui/shown-once-dialog.tsx). The provider sits
// above the routes: the dialog outlives the card that asked for it (a new
// flow's card gives way to the saved flow's).
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import { ShownOnceDialog } from '../ui/shown-once-dialog.tsx';

type Reveal = (secret: string, what: string) => void;

const RevealContext = createContext<Reveal | undefined>(undefined);

export function SecretRevealProvider({ children }: { children: ReactNode }) {
  const [shown, setShown] = useState<{ secret: string; what: string }>();
  const reveal = useCallback<Reveal>((secret, what) => setShown({ secret, what }), []);
  return (
    <RevealContext.Provider value={reveal}>
      {children}
      {shown ? (
        <ShownOnceDialog
          shown={{
            title: 'Webhook secret',
            what: shown.what,
            value: shown.secret,
            use: (
              <>
                flowhook keeps only its SHA-256 hash. Callers send it as <code>secret</code> in the body of every call.
              </>
            ),
          }}
          onDone={() => setShown(undefined)}
        />
      ) : null}
    </RevealContext.Provider>
  );
}

export function useRevealSecret(): Reveal {
  const reveal = useContext(RevealContext);
  if (!reveal) throw new Error('useRevealSecret outside SecretRevealProvider');
  return reveal;
}
