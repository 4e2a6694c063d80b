// Variables earlier releases read. A deployment that still sets one should learn that it no
// longer does anything, not run as if it did: the processes that read it then stop.
import { setting, settingsGroup } from '../setting.ts';
import { text } from '../values/text-value.ts';

export const RETIRED_SETTINGS = settingsGroup('No longer read', {
  // It was shared by facade, workers and engine, and could claim any caller.
  FLOWHOOK_SERVICE_TOKEN: setting({
    type: text(),
    secret: true,
    processes: ['engine', 'facade', 'worker'],
    meaning: 'the service token earlier releases shared between facade, workers and engine',
    retired:
      'every process has its own service account now (flowhook service-account create <name> --scope invoke|records|admin); ' +
      'the facade and each worker present theirs in FLOWHOOK_ENGINE_TOKEN or FLOWHOOK_ENGINE_TOKEN_FILE',
  }),
});
