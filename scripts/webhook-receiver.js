#!/usr/bin/env node
'use strict';

/**
 * A local webhook receiver for trying webhooks on this machine (docs/api.md, *A local receiver*). It
 * listens on 127.0.0.1, checks each request's Standard Webhooks signature with the endpoint's secret, prints
 * one line per request and the body, and answers 204 (verified) or 401 (not). Plain Node.js, no packages.
 *
 *   WEBHOOK_SECRET=whsec_... node scripts/webhook-receiver.js [--port 4001]
 *
 * The server only sends plain http to this machine with PUBLIC_API_WEBHOOKS_ALLOW_HTTP_LOOPBACK=true
 * (development only), set where both the server and `npm run key` read it: in .env.
 */
const { createHmac, timingSafeEqual } = require('node:crypto');
const http = require('node:http');

/** How old (or how far ahead) a webhook-timestamp may be, as Standard Webhooks libraries allow. */
const TOLERANCE_SECONDS = 5 * 60;
/** The most bytes of a body read; a larger one is refused. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Why a request's signature does not hold, or null when it does: `webhook-signature` carries, space
 * separated, `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under the secret's key (the base64 after
 * `whsec_`); one match is enough (two are sent while a rotated secret's predecessor still signs).
 */
const signatureProblem = (secret, headers, body, nowSeconds = Math.floor(Date.now() / 1000)) => {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return 'missing webhook-id, webhook-timestamp or webhook-signature';
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return 'timestamp too old or too new';
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? null : 'no signature matches the secret';
};

/** The receiver: resolves with the server once it listens. `say` gets each line it prints. */
const startReceiver = ({ secret, port, say }) =>
  new Promise((resolve, reject) => {
    const server = http.createServer((request, response) => {
      const chunks = [];
      let size = 0;
      request.on('data', (chunk) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) request.destroy();
        else chunks.push(chunk);
      });
      request.on('end', () => {
        const body = Buffer.concat(chunks);
        const problem = signatureProblem(secret, request.headers, body);
        let event = {};
        try {
          event = JSON.parse(body.toString('utf8'));
        } catch {
          // Not JSON: said below through the signature (a sender of ours always signs JSON).
        }
        const subject = event.data ? `${event.data.type}/${event.data.id}` : '-';
        say(
          `${problem ? `REFUSED (${problem})` : 'verified'}  ${event.type ?? '-'}  ${subject}  webhook-id ${request.headers['webhook-id'] ?? '-'}`,
        );
        if (!problem) say(body.toString('utf8'));
        response.writeHead(problem ? 401 : 204).end();
      });
    });
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

const main = async () => {
  const secret = process.env.WEBHOOK_SECRET ?? '';
  const portAt = process.argv.indexOf('--port');
  const port = portAt > 0 ? Number(process.argv[portAt + 1]) : 4001;
  if (!/^whsec_[A-Za-z0-9+/]+=*$/.test(secret)) {
    process.stderr.write(
      'Set WEBHOOK_SECRET to the endpoint\'s signing secret (whsec_..., printed once by "npm run key -- webhook-add").\n',
    );
    process.exit(2);
  }
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    process.stderr.write('--port takes a port number (1 to 65535).\n');
    process.exit(2);
  }
  const say = (line) => process.stdout.write(`${line}\n`);
  try {
    const server = await startReceiver({ secret, port, say });
    say(`Listening on http://127.0.0.1:${server.address().port}/ (any path); Ctrl+C stops.`);
  } catch (error) {
    process.stderr.write(`Cannot listen on 127.0.0.1:${port}: ${error.message}\n`);
    process.exit(1);
  }
};

if (require.main === module) main();

module.exports = { signatureProblem, startReceiver, TOLERANCE_SECONDS };
