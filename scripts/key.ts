/**
 * `npm run key -- <command>`: the plugin's own `public-api key` command (its package's bin) on this
 * application. A thin alias: scripts/run.js has compiled the application already, so the command is
 * handed the application's folders instead of compiling it again as the bin does.
 */
import path from 'node:path';
import { APP_ROOT } from './lib/strapi';

type Output = { out: (line: string) => void; err: (line: string) => void };

type KeyCommand = {
  runKey: (args: string[], application: () => { appDir: string; distDir: string }, output?: Output) => Promise<number>;
};

// The plugin's build (package.json `exports['./cli']`), found as any application finds it: by the package's name.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const command = (): KeyCommand => require('strapi-plugin-public-data-api/cli') as KeyCommand;

const application = () => ({ appDir: APP_ROOT, distDir: path.join(APP_ROOT, 'dist') });

export const run = (args: string[], output?: Output): Promise<number> => command().runKey(args, application, output);

export const main = (args: string[]) => run(args);
