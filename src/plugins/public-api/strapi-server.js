'use strict';

// The plugin's server is TypeScript compiled by the application's own build (`strapi build`,
// `strapi develop`, or `tsc`) into the application's dist/ folder; this entry loads that output.
const path = require('node:path');

const compiled = path.resolve(__dirname, '..', '..', '..', 'dist', 'src', 'plugins', 'public-api', 'server', 'src');

try {
  module.exports = require(compiled).default;
} catch (error) {
  if (error && error.code === 'MODULE_NOT_FOUND' && String(error.message).includes(compiled)) {
    throw new Error('The public-api plugin is not compiled: run `npm run build` (or `npm run develop`) first.', { cause: error });
  }
  throw error;
}
