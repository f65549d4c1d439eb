/**
 * `npm run seed -- [--events N]`: writes the demo content, then N benchmark events on top.
 * Arguments are checked before the application boots: bad input writes nothing.
 */
import { withStrapi } from './lib/strapi';
import {
  contentFingerprint,
  describeBulkSeed,
  describeDemoSeed,
  parseSeedArguments,
  SEED_USAGE,
  seedBulkEvents,
  seedDemo,
  takeCensus,
} from '../src/seed';

export const main = async (args: string[]): Promise<number> => {
  const parsed = parseSeedArguments(args);
  if (!parsed.ok) {
    process.stderr.write(`${parsed.message}\n\n${SEED_USAGE}\n`);
    return 2;
  }
  if (parsed.value.help) {
    process.stdout.write(`${SEED_USAGE}\n`);
    return 0;
  }
  const log = (line: string) => process.stdout.write(`${line}\n`);
  return withStrapi(async (strapi) => {
    const demo = await seedDemo(strapi, { log });
    const bulk = parsed.value.events > 0 ? await seedBulkEvents(strapi, parsed.value.events, { log }) : null;
    for (const line of describeDemoSeed(demo, await takeCensus(strapi))) log(line);
    if (bulk) log(describeBulkSeed(bulk));
    // Equal on two fresh databases: the demo content is deterministic.
    log(`Demo content fingerprint: ${await contentFingerprint(strapi)}`);
    return 0;
  });
};
