// The three service accounts of a local installation, made on first run:
// flowhook-facade (invoke, all companies, passes on the callers it verified),
// flowhook-worker (records: only for executions the engine started) and
// flowhook-cli (admin). Their tokens live in 0600 files in the data directory;
// the CLI finds its token in `admin-token`, as before.
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEngine } from '../../engine/main.ts';
import { ensureServiceAccount } from '../../engine/domain/callers/ensure-service-account.ts';
import type { NewServiceAccount } from '../../engine/domain/callers/service-accounts.ts';

export interface LocalServiceTokens {
  facade: string;
  worker: string;
  cli: string;
}

const ACCOUNTS: { role: keyof LocalServiceTokens; file: string; spec: NewServiceAccount }[] = [
  {
    role: 'facade',
    file: 'facade-token',
    spec: { name: 'flowhook-facade', scope: 'invoke', companies: [], allCompanies: true, forwardsCallers: true },
  },
  {
    role: 'worker',
    file: 'worker-token',
    spec: { name: 'flowhook-worker', scope: 'records', companies: [], allCompanies: false, forwardsCallers: false },
  },
  {
    role: 'cli',
    file: 'admin-token',
    spec: { name: 'flowhook-cli', scope: 'admin', companies: [], allCompanies: false, forwardsCallers: false },
  },
];

export async function ensureLocalServiceAccounts(
  engine: Pick<RunningEngine, 'orm' | 'changes'>,
  dataDir: string,
  warn: (message: string) => void,
): Promise<LocalServiceTokens> {
  const tokens = {} as LocalServiceTokens;
  for (const { role, file, spec } of ACCOUNTS) {
    const path = join(dataDir, file);
    const held = existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;
    const { token, enabled } = await ensureServiceAccount(engine.orm.em.fork(), engine.changes, spec, held);
    if (token !== held) writeFileSync(path, `${token}\n`, { mode: 0o600 });
    if (!enabled)
      warn(
        `service account ${spec.name} is disabled, so the ${role} cannot reach the engine; enable it with: flowhook service-account enable ${spec.name}`,
      );
    tokens[role] = token;
  }
  // Earlier releases shared one service token between facade and worker; it opens nothing now.
  const legacy = join(dataDir, 'service-token');
  if (existsSync(legacy)) unlinkSync(legacy);
  return tokens;
}
