/**
 * A port someone else already listens on, said in words: `npm run demo` checks before it builds and
 * seeds anything, and again when the server starts listening (another program may take the port in
 * between). Strapi's own message is logged asynchronously right before it exits, so it never shows.
 */
import net from 'node:net';

/** What the operator reads: which port, and how to pick another. */
export const portInUseMessage = (port: number): string =>
  `Port ${port} is already in use by another program (or another demo). Stop it, or choose another port, e.g. PORT=${port === 4000 ? 4001 : 4000} npm run demo`;

export const portDeniedMessage = (port: number): string =>
  `Port ${port} may not be used by this user (ports below 1024 need privileges). Choose another port, e.g. PORT=4000 npm run demo`;

/** The message for a listen error that means "this port cannot be had", or null for any other error. */
export const portProblem = (error: unknown, port: number): string | null => {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE') return portInUseMessage(port);
  if (code === 'EACCES') return portDeniedMessage(port);
  return null;
};

/**
 * Whether `port` can be listened on at `host` now: null when it can, else the message saying why not.
 * Listens for a moment and closes again.
 */
export const checkPort = (port: number, host: string): Promise<string | null> =>
  new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error) => {
      const problem = portProblem(error, port);
      if (problem) resolve(problem);
      else reject(error);
    });
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(null)));
  });

/**
 * Says the port problem through `report` when `server` fails to listen, before any other error listener
 * (Strapi's exits the process at once).
 */
export const explainListenErrors = (server: net.Server, port: number, report: (message: string) => void): void => {
  server.prependListener('error', (error) => {
    const problem = portProblem(error, port);
    if (problem) report(problem);
  });
};
