/**
 * The whole demo plan, in write order. Pure and deterministic: the same plan on every call.
 */
import { planBuildings } from './buildings';
import { planEvents } from './events';
import { planFestivals } from './festivals';
import { planFiles } from './files';
import { planJobs } from './jobs';
import { planProducts } from './products';
import type { DemoPlan } from './types';
import { planHomepage, planPages, planSettings, planWebsites } from './websites';

export const buildDemoPlan = (): DemoPlan => {
  const buildings = planBuildings();
  const events = planEvents(buildings);
  return {
    files: planFiles(),
    documents: [
      ...planWebsites(),
      ...buildings,
      ...planFestivals(),
      ...events,
      ...planProducts(events),
      ...planJobs(),
      ...planPages(events),
      ...planSettings(),
      planHomepage(events),
    ],
  };
};

export * from './types';
