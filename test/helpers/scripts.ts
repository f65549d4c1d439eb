/**
 * The application's command-line scripts run in the test process: the compiled script (dist/scripts,
 * built by the global setup) called as scripts/run.js calls it, on a database given by its environment.
 * For what a command decides and prints; the process around it (run.js, the exit status, the streams)
 * is tested through runNode (processes.ts) where that boundary is the point.
 */
import path from 'node:path';
import { APP_ROOT } from './app';
import type { ProcessResult } from './processes';
import { TEST_ENV } from './env';

type KeyScript = {
  run: (args: string[], output: { out: (line: string) => void; err: (line: string) => void }) => Promise<number>;
};

/**
 * `npm run key -- <args>` with `env` (the database) in this process: the status run.js would exit with
 * (the command's own, or 1 with the message of an error it throws) and what it printed.
 */
export const runKeyCommand = async (args: string[], env: Record<string, string>): Promise<ProcessResult> => {
  const script = require(path.join(APP_ROOT, 'dist', 'scripts', 'key.js')) as KeyScript;
  const stdout: string[] = [];
  const stderr: string[] = [];
  const saved = { ...process.env };
  Object.assign(process.env, TEST_ENV, env);
  try {
    const code = await script.run(args, { out: (line) => stdout.push(`${line}\n`), err: (line) => stderr.push(`${line}\n`) });
    return { code, stdout: stdout.join(''), stderr: stderr.join('') };
  } catch (error) {
    return { code: 1, stdout: stdout.join(''), stderr: `${stderr.join('')}${(error as Error).message}\n` };
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
};
