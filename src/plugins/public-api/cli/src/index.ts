/**
 * The `public-api` command (package.json `bin`), run in a Strapi application's folder:
 *
 *   public-api key <command> [options]     API keys and their webhook endpoints (key.ts)
 *
 * It loads the application as Strapi's own commands do (`compileStrapi`: a TypeScript application is
 * compiled first, incrementally), so that it reads the application's database settings and the plugin's
 * configuration from the application itself.
 */
import { compileStrapi } from '@strapi/strapi';
import { KEY_USAGE, runKey, type Output } from './key';
import type { AppDirs } from './strapi';

export { runKey, parseExpiry, splitGrantsFile, UsageError, KEY_USAGE, type Output } from './key';
export type { AppDirs } from './strapi';

const USAGE = `usage: public-api key <command> [options]   (in the Strapi application's folder)\n\n${KEY_USAGE}`;

const defaultOutput: Output = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** The application in the working directory, compiled when it is written in TypeScript. */
const currentApplication = async (): Promise<AppDirs> => {
  const { appDir, distDir } = await compileStrapi({ appDir: process.cwd() });
  return { appDir, distDir: distDir ?? appDir };
};

/** Runs `public-api <args>`; resolves to the exit status. */
export const main = async (
  args: string[],
  output: Output = defaultOutput,
  application: () => Promise<AppDirs> = currentApplication,
): Promise<number> => {
  const [command, ...rest] = args;
  if (command === '--help' || command === '-h' || command === 'help') {
    output.out(USAGE);
    return 0;
  }
  if (command !== 'key') {
    output.err(command ? `Unknown command '${command}'.\n${USAGE}` : USAGE);
    return 2;
  }
  return runKey(rest, application, output);
};
