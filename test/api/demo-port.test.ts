/**
 * `npm run demo` on a port already in use (defect 20): it says so, names the port and how to choose
 * another, and exits non-zero, before building, seeding or writing anything.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { APP_ROOT, runNode } from '../helpers/processes';

test('npm run demo on a taken port prints which port and how to choose another, and exits 1', async () => {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address() as net.AddressInfo;
  const envFile = path.join(APP_ROOT, '.env');
  const hadEnv = fs.existsSync(envFile);
  try {
    const result = await runNode(['scripts/run.js', 'demo'], { PORT: String(port), HOST: '127.0.0.1' }, 60_000);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `Port ${port} is already in use by another program (or another demo). Stop it, or choose another port, e.g. PORT=4000 npm run demo`,
    );
    // Nothing was started on the way: no build, no seeding, no .env.
    expect(result.stdout).toBe('');
    expect(fs.existsSync(envFile)).toBe(hadEnv);
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});
