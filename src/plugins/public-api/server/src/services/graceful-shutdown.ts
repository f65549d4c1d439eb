/**
 * Graceful drain on SIGTERM (docs/deployment.md, Rolling restarts): an instance told to stop leaves the
 * proxy's rotation before it stops accepting, and finishes what it accepted.
 *
 * 1. Readiness says 503 `draining` at once (services/readiness.ts); requests still arriving are answered.
 * 2. After `drainDelayMs` (the proxy's checks have seen it by then), the listener closes: no new
 *    connection is accepted, idle keep-alive connections are closed, and every response from then on
 *    says `Connection: close` (middlewares/operator.ts).
 * 3. Requests in flight finish, for at most `shutdownTimeoutMs`; then Strapi shuts down as it would (the
 *    plugin's destroy drains the database pool) and the process exits 0.
 *
 * Strapi's own handler (core utils/signals.js) destroys every connection at once, in-flight requests
 * included; it is replaced for SIGTERM, the signal process managers and orchestrators send. SIGINT (Ctrl-C
 * at a terminal) keeps Strapi's immediate stop.
 */
import type { Server } from 'node:http';
import type { Core } from '@strapi/strapi';
import { pluginConfig } from '../config';
import { getService } from '../utils/get-service';

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The name of the function Strapi registers for SIGTERM and SIGINT (core utils/signals.js). */
const STRAPI_SIGNAL_HANDLER = 'terminateStrapi';

export type DrainOutcome = { finished: boolean; leftInFlight: number };

export default ({ strapi }: { strapi: Core.Strapi }) => {
  let inFlight = 0;
  let stopping: Promise<DrainOutcome> | null = null;
  let closing = false;

  const httpServer = (): (Server & { closeIdleConnections?: () => void }) | undefined =>
    (strapi.server as unknown as { httpServer?: Server } | undefined)?.httpServer;

  const waitForInFlight = async (timeoutMs: number): Promise<boolean> => {
    const deadline = Date.now() + timeoutMs;
    while (inFlight > 0) {
      if (Date.now() >= deadline) return false;
      await pause(20);
    }
    return true;
  };

  const drain = async (): Promise<DrainOutcome> => {
    const { drainDelayMs, shutdownTimeoutMs } = pluginConfig(strapi);
    getService('readiness').startDraining();
    getService('metrics').setDraining(true);
    strapi.log.info(`[public-api] draining: readiness says 503; the listener closes in ${drainDelayMs} ms`);
    await pause(drainDelayMs);
    closing = true;
    const server = httpServer();
    if (server?.listening) {
      server.close();
      server.closeIdleConnections?.();
    }
    const finished = await waitForInFlight(shutdownTimeoutMs);
    if (finished) strapi.log.info('[public-api] drained: every request in flight was answered');
    else strapi.log.warn(`[public-api] drain timed out after ${shutdownTimeoutMs} ms with ${inFlight} requests in flight`);
    return { finished, leftInFlight: inFlight };
  };

  const drainOnce = (): Promise<DrainOutcome> => (stopping ??= drain());

  return {
    /** Counts a request as in flight; the function returned ends it (idempotent). */
    enter(): () => void {
      inFlight += 1;
      let left = false;
      return () => {
        if (left) return;
        left = true;
        inFlight -= 1;
      };
    },

    /** Whether responses should close their connection: the listener is closing. */
    isClosing(): boolean {
      return closing;
    },

    /** Steps 1 to 3 above, without exiting; a second call waits for the first. */
    drain(): Promise<DrainOutcome> {
      return drainOnce();
    },

    /** Replaces Strapi's SIGTERM handler by drain, shutdown and exit. Called once, at bootstrap. */
    installSignalHandler(): void {
      for (const listener of process.listeners('SIGTERM')) {
        if (listener.name === STRAPI_SIGNAL_HANDLER) process.off('SIGTERM', listener);
      }
      const onSigterm = () => {
        process.off('SIGTERM', onSigterm);
        // A second SIGTERM during the drain changes nothing (Strapi receives some signals twice).
        process.on('SIGTERM', () => undefined);
        void drainOnce()
          .then(() => strapi.destroy())
          .then(
            () => process.exit(0),
            (error: unknown) => {
              process.stderr.write(`Shutdown failed: ${(error as Error)?.message ?? String(error)}\n`);
              process.exit(1);
            },
          );
      };
      process.on('SIGTERM', onSigterm);
    },
  };
};
