import type { Core } from '@strapi/strapi';
import type services from '../services';
import { PLUGIN_ID } from '../config';

type Services = typeof services;

/**
 * The services each application instance made, by name. Strapi makes a plugin's service once and then
 * hands out that object; asking for it walks the container, the plugin and the service registry each
 * time (about 1% of a keyed request's CPU, some twenty lookups a request). Kept per instance, so a test
 * process that boots several applications in turn never reaches another one's services.
 */
const made = new WeakMap<Core.Strapi, Map<string, unknown>>();

/** The one way plugin code reaches another service of the plugin. */
export const getService = <Name extends keyof Services>(name: Name): ReturnType<Services[Name]> => {
  let byName = made.get(strapi);
  if (!byName) {
    byName = new Map();
    made.set(strapi, byName);
  }
  let service = byName.get(name);
  if (service === undefined) {
    service = strapi.plugin(PLUGIN_ID).service(name);
    byName.set(name, service);
  }
  return service as ReturnType<Services[Name]>;
};
