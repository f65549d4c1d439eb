/**
 * The `public-api` command (package.json `bin`), run in a Strapi application's folder:
 *
 *   public-api key <command> [options]     API keys and their webhook endpoints (key.ts)
 *
 * It loads the built application as `strapi start` does (a TypeScript application from its compiled outDir,
 * a JavaScript one from its folder), so that it reads the application's database settings and the plugin's
 * configuration from the application itself, and works where only the build is deployed.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { KEY_USAGE, runKey, type Output } from './key';
import type { AppDirs } from './strapi';

export { runKey, parseExpiry, splitGrantsFile, UsageError, KEY_USAGE, type Output } from './key';
export type { AppDirs } from './strapi';

const USAGE = `usage: public-api key <command> [options]   (in the Strapi application's folder)\n\n${KEY_USAGE}`;

const defaultOutput: Output = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

type TypeScriptUtils = {
  isUsingTypeScript: (dir: string) => Promise<boolean>;
  resolveOutDir: (dir: string) => Promise<string>;
};

/** The application in the working directory and the folder its built code is in. */
const currentApplication = async (): Promise<AppDirs> => {
  const appDir = process.cwd();
  let strapiManifest: string;
  try {
    strapiManifest = require.resolve('@strapi/strapi/package.json', { paths: [appDir] });
  } catch {
    throw new Error(
      `${appDir} is not a Strapi application (@strapi/strapi is not installed there): run public-api in the application's folder.`,
    );
  }
  // Strapi's own reader of the application's tsconfig, as the installed Strapi has it.
  const typescript = createRequire(strapiManifest)('@strapi/typescript-utils') as TypeScriptUtils;
  if (!(await typescript.isUsingTypeScript(appDir))) return { appDir, distDir: appDir };
  const distDir = await typescript.resolveOutDir(appDir);
  if (!fs.existsSync(distDir)) throw new Error(`${distDir} is not there: build the application (strapi build) first.`);
  return { appDir, distDir };
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
