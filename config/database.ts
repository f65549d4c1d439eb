import path from 'node:path';
import { DatabaseSettingsError, resolveDatabaseSettings } from '../src/settings/database';

// The compiled file lives in dist/config; the application root is two levels up from there and one
// level up from the source file. Resolve relative filenames against the root either way.
const appRoot =
  path.basename(path.resolve(__dirname, '..')) === 'dist' ? path.resolve(__dirname, '..', '..') : path.resolve(__dirname, '..');

export default () => {
  try {
    return resolveDatabaseSettings(process.env, appRoot);
  } catch (error) {
    if (error instanceof DatabaseSettingsError) {
      // One clear line, no stack: the operator fixes the environment and starts again.
      process.stderr.write(`Invalid database settings: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
};
