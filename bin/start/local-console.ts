// `flowhook start` serves the console's pages as they are in this checkout:
// `npm install` built them, and when their sources changed since (a developer
// at work on console/), start builds them again first — about two seconds
// (Vite; measured on two cores). An install without the build tools
// (--omit=dev) keeps what it has, and says so; the console's RPCs work anyway.
import { buildConsole, isConsoleCurrent } from '../../console/build-console.ts';

export async function buildConsoleIfStale(say: (message: string) => void): Promise<void> {
  if (isConsoleCurrent()) return;
  say('building the console (its pages are missing or older than their sources)…');
  try {
    await buildConsole(say);
  } catch (error) {
    const missing = (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND';
    say(
      `the console's pages were not built (${missing ? 'the build tools are not installed: npm install without --omit=dev' : error instanceof Error ? error.message : String(error)}); the console shows how to build them`,
    );
  }
}
