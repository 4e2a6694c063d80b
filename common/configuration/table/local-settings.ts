// What `flowhook start` decides before the components read theirs: where local data lives and
// which dependencies it runs itself.
import { setting, settingsGroup } from '../setting.ts';
import { path } from '../values/path-value.ts';
import { port } from '../values/port-value.ts';
import { ownPort } from './own-port.ts';

export const LOCAL_SETTINGS = settingsGroup('Local installation (`flowhook start`)', {
  FLOWHOOK_DATA_DIR: setting({
    type: path('directory'),
    defaultText: '`.flowhook` (`start`: in the current directory)',
    processes: ['start', 'cli', 'payload-key'],
    meaning: 'embedded data, tokens, keys, the Temporal CLI',
    roles: {
      cli: "where `start` keeps the admin token (default: ./.flowhook, else the checkout's)",
      'payload-key': "where `start` keeps its key file (default: ./.flowhook, else the checkout's)",
    },
    more: "Admin commands read the admin token from `./.flowhook`, else from the checkout's `.flowhook`, so a linked CLI works from any directory.",
  }),
  // Fixed ports: they are handed to programs flowhook starts, which do not report a free one back.
  FLOWHOOK_EMBEDDED_POSTGRES_PORT: ownPort({
    type: port(),
    default: 7050,
    processes: ['start'],
    meaning: 'embedded PostgreSQL port',
  }),
  FLOWHOOK_TEMPORAL_PORT: setting({
    type: port(),
    default: 7233,
    processes: ['start'],
    meaning: "the Temporal dev server's port",
  }),
  FLOWHOOK_TEMPORAL_UI_PORT: ownPort({
    type: port(),
    default: 8233,
    processes: ['start'],
    meaning: "the Temporal dev server's Web UI port",
  }),
  TEMPORAL_CLI: setting({
    type: path(),
    defaultText: '`temporal` on `PATH`, else `<data dir>/bin/temporal`, installed on first use',
    processes: ['start'],
    meaning: 'the Temporal CLI that runs the dev server',
  }),
});
